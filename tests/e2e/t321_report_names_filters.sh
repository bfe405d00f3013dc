#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# How reports show what they show: long C++ names shortened with a visible
# "[...]" (template arguments first, then the middle) but never cut
# silently and never merged, whole with --wide; one header style in every
# report saying what a percentage is of; a profile footer that counts only
# what the filter kept; filters that match nothing say so, with what the
# trace has; --module libc matches libc.so.6.  tests/progs/long_names.cc:
# work<1> loops 3000 times, work<2> 2000, run 1000.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

prog=$PROGS/long_names
arc_record t "$prog"

# --wide: the names whole, as c++filt demangles nm's.
"$POST" -i t profile --module long_names --wide >wide || fail "profile --wide"
for sym in $(nm "$prog" | awk '$3 ~ /holder.*work|lone.*run/ { print $3 }'); do
	full=$(c++filt "$sym")
	grep -qF "  $full [long_names]" wide || fail "--wide lacks $full"
done
# By default long names are shorter, marked, and the two work<> still apart.
"$POST" -i t profile --module long_names >short || fail "profile"
grep -v '^#' short | awk '{ $1 = $2 = $3 = $4 = $5 = ""; print }' >names
expect_eq "holder<>::work and lone<>::run, shortened and marked" 3 \
	"$(grep -E 'holder|lone' names | grep -c '\[\.\.\.\]')"
awk '{ if (length($0) > 180) bad = 1 } END { exit bad }' names || fail "a shortened name is too long: $(cat names)"
w1=$(grep -F 'tag<1>' names | wc -l)
w2=$(grep -F 'tag<2>' names | wc -l)
[ "$w1" = 1 ] && [ "$w2" = 1 ] || fail "work<1> and work<2> not told apart: $(cat names)"
grep -q 'lone<\[\.\.\.\]>::run(' names || fail "run's own name lost: $(cat names)"
# Counts by construction: 7 instructions an iteration, 13 around the loop.
for pat in 'tag<1>:21013' 'tag<2>:14013' 'lone<:7013'; do
	base=$(grep -F "${pat%%:*}" short | awk '{ print $2 }')
	expect_eq "Base of ${pat%%:*}" "${pat##*:}" "$base"
done
# counts --by insn: a row per address, its symbol+0xOFF kept after shortening
"$POST" -i t counts --by insn --module long_names >insn || fail "counts --by insn"
rows=$(grep -vc '^#' insn)
grep -v '^#' insn | grep -v ' total$' | grep -q '\[\.\.\.\].*)+0x[0-9a-f]* ' || fail "no shortened symbol+0xOFF"
expect_eq "distinct rows of counts --by insn" "$rows" "$(grep -v '^#' insn | awk '{ print $3 }' | sort -u | wc -l)"

# One header style; percentages of the same total in counts and profile.
total=$("$POST" -i t counts | sed -n 's/^# total: \([0-9]*\) steps of the trace (percentages are of these)$/\1/p')
[ -n "$total" ] || fail "counts: no total line"
for report in "counts" "profile" "arc" "tree" "flow" "steps --to 10"; do
	# shellcheck disable=SC2086
	"$POST" -i t $report --module long_names >rep 2>err || fail "$report"
	name=${report%% *}
	head -1 rep | grep -Eq "^# [a-z ]+ of trace t \(ptrace, complete\)$" || fail "$name: first line: $(head -1 rep)"
	sed -n 2p rep | grep -q "^# command: .*long_names$" || fail "$name: command line: $(sed -n 2p rep)"
	grep -qx '# filter: module long_names' rep || fail "$name: filter line: $(grep filter rep)"
	case $name in counts | profile | arc | tree)
		grep -qx "# total: $total steps of the trace (percentages are of these)" rep ||
			fail "$name: total line: $(grep '^# total' rep)" ;;
	esac
done
shown=$("$POST" -i t counts --module long_names | sed -n 's/^# shown: \([0-9]*\) steps (\([0-9.]*\)%).*/\1 \2/p')
[ -n "$shown" ] || fail "counts --module: no shown line"
pct=$(awk -v s="${shown% *}" -v t="$total" 'BEGIN { printf "%.2f", 100 * s / t }')
expect_eq "shown percent is of the trace's total" "$pct" "${shown#* }"

# profile --top's footer: only the module's functions that were not shown.
all=$("$POST" -i t profile --module long_names | grep -v '^#' | awk '{ s += $2 } END { print s }')
top=$("$POST" -i t profile --module long_names --top 2 | grep -v '^#' | awk '{ s += $2 } END { print s }')
"$POST" -i t profile --module long_names --top 2 | grep -q "more functions with $((all - top)) steps of Base" ||
	fail "profile --top footer: $("$POST" -i t profile --module long_names --top 2 | tail -1), expected $((all - top))"

# --module libc: libc.so.6's functions
"$POST" -i t profile --module libc | grep -q ' \[libc\.so\.6\]$' || fail "--module libc matched nothing"
# Filters that match nothing: a warning naming what is there, exit 0.
while IFS='|' read -r args re; do
	# shellcheck disable=SC2086
	"$POST" -i t profile $args >out 2>err || fail "profile $args: exit $?"
	grep -Eq "$re" err || fail "profile $args: stderr '$(cat err)' does not match '$re'"
	[ "$(wc -l <err)" = 1 ] || fail "profile $args: one warning line expected: $(cat err)"
done <<'CASES'
--module nosuch|^post: warning: --module nosuch matches no module; the trace's modules: .*long_names
--symbol holdr|^post: warning: --symbol holdr matches no function \(post profile lists them\)$
--symbol work|^post: warning: --symbol work matches no function; functions with it in their name: .*::work\(
--pid 1|^post: warning: --pid 1 matches no process of the trace; its processes: [0-9]+ \(long_names\)$
--tid 1|^post: warning: --tid 1 matches no thread of the trace; its threads: [0-9]+ \(pid [0-9]+, long_names\)$
--from 99999999|^post: warning: the window .* holds none of the trace's steps, 0 to [0-9]+$
--ring kernel|^post: warning: --ring kernel matches nothing: the trace's code is user code only$
CASES
echo "PASS"
