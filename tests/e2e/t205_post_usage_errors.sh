#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bad options and arguments: one-line error, exit 2, before any trace is read.
. "$(dirname "$0")/lib.sh"
[ -x "$PROGS/mktrace" ] || skip "$PROGS/mktrace not built (make progs)"
"$PROGS/mktrace" pitrace.data --steps 10 || fail "mktrace"

# One row a case: expected stderr (regex) | arguments
while IFS='|' read -r re args; do
	[ -z "$re" ] && continue
	# shellcheck disable=SC2086
	"$POST" $args >out 2>err
	rc=$?
	[ $rc = 2 ] || fail "post $args: exit $rc, expected 2"
	[ "$(wc -l <err)" = 1 ] || fail "post $args: expected one error line, got: $(cat err)"
	grep -Eq "$re" err || fail "post $args: '$(cat err)' does not match '$re'"
	[ -s out ] && fail "post $args: printed a report"
done <<'CASES'
^post: error: unknown option '--bogus'|--bogus counts
^post: error: unknown command 'bogus'|bogus
^post: error: counts: unknown option '--bogus'|counts --bogus
^post: error: info: unknown option '--bogus'|info --bogus
^post: error: dump: unknown option '--bogus'|dump --bogus
^post: error: counts: ambiguous option '--t' \(see 'post counts --help'\)$|counts --t 3
^post: error: counts: --by 'bogus' is not one of process, thread, module, symbol, line, insn$|counts --by bogus
^post: error: counts: --by 'symbols' is not one of|counts --by=symbols
^post: error: counts: option --by needs an argument \(process.thread.module.symbol.line.insn\) \(see 'post counts --help'\)$|counts --by
^post: error: tree: option --merged takes no argument \(see 'post tree --help'\)$|tree --merged=yes
^post: error: counts: --top '0' is not a positive number of rows$|counts --top 0
^post: error: counts: --top 'x' is not a positive number of rows$|counts --top x
^post: error: counts: --pid 'abc' is not a positive number$|counts --pid abc
^post: error: counts: --tid '-3' is not a positive number$|counts --tid -3
^post: error: profile: --ring 'both' is not one of all, user, kernel$|profile --ring both
^post: error: counts: --time-from '1x' is not a time|counts --time-from 1x
^post: error: counts: --from 9 is after --to 2$|counts --from 9 --to 2
^post: error: counts: unexpected argument 'extra'|counts extra
^post: error: info: unexpected argument 'extra'|info extra
^post: error: dump: unexpected argument 'header'|dump tasks header
^post: error: counts: option -i/--input needs an argument \(DIR\)|counts -i
^post: error: option -i/--input needs an argument \(DIR\) \(see 'post --help'\)$|-i
^post: error: --verify: 'info' has no pass over a trace to check$|--verify info
^post: error: --verify: 'tui' has no pass over a trace to check$|--verify tui
^post: error: counts: unknown option '--bogus'|--verify counts --bogus
CASES
echo PASS
