#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post reads step streams in bounded memory: 100 times the steps take about
# the same memory; a zstd trace gives the same report as a plain one.
. "$(dirname "$0")/lib.sh"
[ -x "$PROGS/mktrace" ] || skip "$PROGS/mktrace not built (make progs)"
[ -x /usr/bin/time ] || skip "/usr/bin/time not installed"

"$PROGS/mktrace" small --steps 200000 --threads 3 --run 1000 --loop 5000 || fail "mktrace small"
"$PROGS/mktrace" large --steps 20000000 --threads 3 --run 1000 --loop 5000 || fail "mktrace large"
"$PROGS/mktrace" largez --zstd --steps 20000000 --threads 3 --run 1000 --loop 5000 || fail "mktrace zstd"

rss() { # max resident KB of: post ARGS
	/usr/bin/time -f %M -o rss.out "$POST" "$@" >report.out || fail "post $*: exit $?"
	cat rss.out
}
for by in thread insn; do
	s=$(rss -i small counts --by "$by")
	l=$(rss -i large counts --by "$by")
	total=$(awk '$NF == "total" { print $1 }' report.out)
	[ "$total" = 20000000 ] || fail "--by $by: total $total, expected 20000000"
	# same code footprint, 100x the steps: at most 8 MiB more
	[ "$l" -le $((s + 8192)) ] || fail "--by $by: $s KB for 200000 steps but $l KB for 20000000"
	echo "--by $by: max RSS $s KB (2e5 steps), $l KB (2e7 steps)"
done
"$POST" -i large counts --by thread | grep -v ' of trace ' >plain
"$POST" -i largez counts --by thread | grep -v ' of trace ' >zstd
expect_same_file "zstd and plain reports" plain zstd
echo PASS
