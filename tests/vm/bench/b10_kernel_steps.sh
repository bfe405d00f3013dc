# SPDX-License-Identifier: GPL-2.0
# Kernel-mode benchmark (tests/vm/bench.sh): in one boot, steps/s of a
# user-only recording (vm_bench: a 3000004-instruction loop) next to a
# --kernel recording of 20000 getpid calls (mostly kernel steps), both with
# pitrace record in step mode, each the best of three; rates are recorded
# steps over the trace's duration.
. /pt/cases/lib.inc
rate() {	# rate DIR: steps per second of the trace in DIR
	post -i $1 info | awk '/^steps:/ { s = $2 } /^duration:/ { d = $2 }
		END { if (d > 0) printf "%d", s / d; else print 0 }'
}
best() {	# best OUTVAR-free: best of three "rate" values of a command's traces
	b=0
	for i in 1 2 3; do
		rm -rf tb
		"$@" >bench.out 2>&1 || { cat bench.out >&2; echo 0; return; }
		r=$(rate tb)
		[ "$r" -gt "$b" ] && b=$r
	done
	echo $b
}
user=$(best pitrace record -o tb -- $PT_PROGS/vm_bench)
kern=$(best pitrace record --kernel -o tb -- $PT_PROGS/kern_getpid 20000)
ks=$(post -i tb counts --ring kernel | sed -n 's/^# shown: \([0-9]*\) steps.*/\1/p')
all=$(post -i tb counts | sed -n 's/^# total: \([0-9]*\) steps.*/\1/p')
[ "$kern" -gt 0 ] && echo "PASS bench-kernel-record" || echo "FAIL bench-kernel-record: no rate"
echo "INFO bench: user-mode record $user steps/s; kernel-mode (--kernel, getpid loop," \
	"$ks of $all steps in the kernel) $kern steps/s"
