#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A trace with kernel addresses (a driver's: kallsyms, the KASLR slide) is
# its owner's only: written private (mktrace --private, as the collector
# writes), another user cannot read it, and post says why in one line with
# exit 1; so is any trace by default (0700, as perf.data), and one recorded
# with --shared (mktrace --shared) reads for anyone.
. "$(dirname "$0")/lib.sh"
[ -x "$PROGS/mktrace" ] || skip "$PROGS/mktrace not built (make progs)"
command -v setpriv >/dev/null || skip "setpriv is not installed"
[ "$(id -u)" = 0 ] || skip "needs root to switch to another user"
id nobody >/dev/null 2>&1 || skip "no user nobody"
chmod 755 "$TMP"
as_nobody() { setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups "$@"; }

"$PROGS/mktrace" private --private --steps 100 || fail "mktrace --private"
"$PROGS/mktrace" public --shared --steps 100 || fail "mktrace --shared"
"$PROGS/mktrace" plain --steps 100 || fail "mktrace"
expect_eq "the private trace's modes" "700 600 600" \
	"$(stat -c %a private) $(stat -c %a private/header) $(stat -c %a private/steps.t1000)"
expect_eq "the shared trace's modes" "755 644" "$(stat -c %a public) $(stat -c %a public/header)"
expect_eq "a trace's modes by default" "700 600" "$(stat -c %a plain) $(stat -c %a plain/header)"

"$POST" -i private info >/dev/null || fail "its owner cannot read the private trace"
as_nobody "$POST" -i "$TMP/private" info >out 2>err
rc=$?
expect_eq "another user reading it: exit status" 1 "$rc"
expect_eq "another user reading it: stderr" \
	"post: error: cannot open $TMP/private/header: Permission denied" "$(cat err)"
[ -s out ] && fail "another user got output: $(head -2 out)"
as_nobody "$POST" -i "$TMP/plain" info >out 2>err && fail "another user read a trace by default"
as_nobody "$POST" -i "$TMP/public" counts >out 2>err || fail "another user cannot read a shared trace: $(cat err)"
grep -q '^# total: 100 steps' out || fail "another user's counts: $(head -5 out)"
echo PASS
