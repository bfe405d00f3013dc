#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post reads step streams in bounded memory: 100 times the steps take about
# the same memory; a zstd trace gives the same report as a plain one;
# progress shows on a terminal (the percent of the streams read, growing),
# not when piped.
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

# progress: on a terminal, a line a million steps with the percent of the
# streams read, growing; nothing when stderr is no terminal
if command -v script >/dev/null; then
	script -qec "$POST -i large counts --by thread >/dev/null" /dev/null >tty.out ||
		fail "post counts on a terminal"
	tr '\r' '\n' <tty.out | sed -n 's/.*counts: [0-9.]*M steps, \([0-9]*\)%.*/\1/p' >pct
	[ "$(wc -l <pct)" -ge 10 ] || fail "progress: $(wc -l <pct) lines for 20M steps"
	sort -n -c pct || fail "progress went back: $(tr '\n' ' ' <pct)"
	[ "$(head -n 1 pct)" -lt 50 ] && [ "$(tail -n 1 pct)" -ge 90 ] ||
		fail "progress: $(tr '\n' ' ' <pct)"
	echo "progress on a terminal: $(tr '\n' ' ' <pct)"
else
	echo "SKIP progress on a terminal: no script(1)"
fi
"$POST" -i large counts --by thread >/dev/null 2>piped.err || fail "post counts piped"
[ ! -s piped.err ] || fail "progress when stderr is no terminal: $(head -c 200 piped.err)"
echo PASS
