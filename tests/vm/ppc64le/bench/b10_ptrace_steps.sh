# SPDX-License-Identifier: GPL-2.0
# The ptrace backend's speed on POWER (tests/vm/bench.sh), as make bench
# measures it on x86_64 (scripts/bench.sh): steps/s of pitrace record
# --backend ptrace next to the bare PTRACE_SINGLESTEP loop (bare_step, the
# floor: step, wait, one register read) over the same program, vm_loop
# (30004 instructions), each the best of three; a recording's rate is its
# steps over the trace's duration.
. /pt/cases/lib.inc
best_bare=0 best_rec=0
for i in 1 2 3; do
	bare=$($PT_PROGS/bare_step $PT_PROGS/vm_loop | sed -n 's/.*steps\/s \([0-9]*\).*/\1/p')
	[ "${bare:-0}" -gt $best_bare ] && best_bare=$bare
	rm -rf tr
	pitrace record --backend ptrace -o tr -- $PT_PROGS/vm_loop >rec.out 2>&1
	check_eq bench-ptrace-steps-$i "steps" 30004 "$(post -i tr info | sed -n 's/^steps: *//p')"
	rec=$(post -i tr info | awk '/^steps:/ { s = $2 } /^duration:/ { d = $2 }
		END { if (d > 0) printf "%d", s / d; else print 0 }')
	[ "$rec" -gt $best_rec ] && best_rec=$rec
done
echo "INFO bench: ptrace backend record $best_rec steps/s, bare PTRACE_SINGLESTEP loop" \
	"$best_bare steps/s, record at" \
	"$(awk -v r=$best_rec -v b=$best_bare 'BEGIN { if (b) printf "%.0f", 100 * r / b }')% of the bare loop" \
	"(vm_loop, best of 3)"
