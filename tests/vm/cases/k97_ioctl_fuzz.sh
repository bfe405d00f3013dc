# SPDX-License-Identifier: GPL-2.0
# The driver under ioctl fuzzing (tests/vm/ptfuzz.c): thousands of random
# ioctl numbers, sizes, fields (reserved ones included), short and long
# structs and bad pointers, with claims, selections of a busy child, on/off,
# flushes, rings mapped at right and wrong offsets and scribbled over, forks
# holding the file and closes at random.  Then no session is left, the
# driver still records a program's exact count, and (the harness) it
# unloads and the kernel log is clean.  As nobody, with the node opened up
# to everyone, every open is refused.  The seeds are printed: one fixed,
# one from the clock (rerun with ptfuzz -s SEED).
. /pt/cases/lib.inc
clock_seed=$(date +%s)
for seed in 1 "$clock_seed"; do
	out=$(ptfuzz -n 3000 -s "$seed" 2>&1)
	rc=$?
	echo "$out" | grep '^INFO' || echo "$out" | tail -3
	if [ $rc = 0 ] && echo "$out" | grep -q "^INFO ptfuzz: 3000 calls, seed $seed: ok [1-9]"; then
		echo "PASS ioctl-fuzz-seed-$([ "$seed" = 1 ] && echo fixed || echo clock)"
	else
		echo "FAIL ioctl-fuzz-seed-$seed: exit $rc"
	fi
done
st=$(ptdrv status)
check_eq ioctl-fuzz-no-session "status after the fuzzer's files closed" claimed=0 "$(echo "$st" | tr ' ' '\n' | grep '^claimed=')"
ptdrv run -k pid -- "$PT_PROGS/vm_loop" >exact.out 2>&1
check_eq ioctl-fuzz-then-exact "vm_loop's steps after the fuzzing" 30004 \
	"$(field "$(prog_line exact.out vm_loop)" after_exec)"

chmod 666 /dev/pitrace
out=$(su nobody -s /bin/sh -c "$PT_TOOLS/ptfuzz open" 2>&1)
chmod 600 /dev/pitrace
check_eq ioctl-fuzz-nobody-open "open as nobody of a 0666 node" EPERM "$out"
