# SPDX-License-Identifier: GPL-2.0
# Driver benchmark (tests/vm/bench.sh): steps/s of a 3000004-instruction
# loop recorded in step mode (collector draining) and counted in count mode,
# in the same boot, each the best of three runs.
. /pt/cases/lib.inc
rate() {	# rate MODE: best steps/s of three runs
	best=0
	for i in 1 2 3; do
		ptdrv run -m $1 -k comm -b 33554432 -- $PT_PROGS/vm_bench >out.$1 2>&1
		steps=$(final out.$1 steps)
		secs=$(grep '^child exit' out.$1 | cut -d' ' -f5)
		r=$(awk -v s="$steps" -v t="$secs" 'BEGIN { printf "%d", s / t }')
		echo "bench run: mode $1, $steps steps in $secs s" >&2
		[ "$r" -gt "$best" ] && best=$r
	done
	echo $best
}
rec=$(rate step)
cnt=$(rate count)
check_eq bench-record-steps "steps recorded" 3000004 "$(final out.step steps)"
check_eq bench-count-steps "steps counted" 3000004 "$(final out.count steps)"
echo "INFO bench: record $rec steps/s, count-only $cnt steps/s, recording costs" \
	"$(awk -v r="$rec" -v c="$cnt" 'BEGIN { printf "%.1f", (c / r - 1) * 100 }')% over counting"
