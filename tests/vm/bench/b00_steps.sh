# SPDX-License-Identifier: GPL-2.0
# Driver benchmark (tests/vm/bench.sh): steps/s of a 3000004-instruction
# loop recorded in step mode (collector draining) and counted in count mode,
# in the same boot; runs alternate between the modes (TCG speed drifts with
# the host's load) and each mode's best of three counts.
. /pt/cases/lib.inc
best_step=0 best_count=0
for i in 1 2 3; do
	for mode in step count; do
		ptdrv run -m $mode -k comm -b 33554432 -- $PT_PROGS/vm_bench >out.$mode 2>&1
		steps=$(final out.$mode steps)
		secs=$(grep '^child exit' out.$mode | cut -d' ' -f5)
		rate=$(awk -v s="$steps" -v t="$secs" 'BEGIN { printf "%d", s / t }')
		echo "bench run: mode $mode, $steps steps in $secs s" >&2
		check_eq bench-$mode-steps-$i "steps" 3000004 "$steps"
		eval "[ $rate -gt \$best_$mode ] && best_$mode=$rate"
	done
done
echo "INFO bench: record $best_step steps/s, count-only $best_count steps/s, recording costs" \
	"$(awk -v r="$best_step" -v c="$best_count" 'BEGIN { printf "%.1f", (c / r - 1) * 100 }')%" \
	"over counting"
