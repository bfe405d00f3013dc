#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A flipped byte inside a step stream fails its CHECK: refused with the byte range.
. "$(dirname "$0")/lib.sh"
[ -x "$PROGS/mktrace" ] || skip "$PROGS/mktrace not built (make progs)"

"$PROGS/mktrace" t --steps 300000 --loop 1000 || fail "mktrace"
# flip a step byte in the second CHECK block (well past the SWITCH and the first CHECK)
off=100000
b=$(od -An -tu1 -j $off -N1 t/steps.t1000 | tr -d ' ')
printf "\\$(printf '%03o' $(( (b ^ 0x01) )))" | dd of=t/steps.t1000 bs=1 seek=$off conv=notrunc status=none
"$POST" -i t counts >out 2>err
rc=$?
[ $rc = 1 ] || fail "exit $rc, expected 1"
[ "$(wc -l <err)" = 1 ] || fail "expected one error line, got: $(cat err)"
grep -Eq '^post: error: t/steps\.t1000: checksum mismatch: corrupt data in bytes [0-9]+-[0-9]+ \(--force reads up to there\)$' err ||
	fail "unexpected message: $(cat err)"
[ -s out ] && fail "a report was printed from a corrupt trace"
"$POST" -i t --force counts >out 2>err || fail "--force: exit $?"
total=$(awk '$NF == "total" { print $1 }' out)
[ "$total" -gt 0 ] && [ "$total" -lt 300000 ] || fail "--force: total $total"
echo PASS
