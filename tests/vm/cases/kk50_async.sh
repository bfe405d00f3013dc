# SPDX-License-Identifier: GPL-2.0
# Interrupts and exceptions taken by a traced task (ASYNC records of kinds
# interrupt, exception, irq).  vm_faults writes one byte to each of 64
# fresh pages in touch_pages (64 user-mode page faults at known addresses),
# read()s a pipe into 64 other fresh pages (the kernel's copy faults on
# each) and spins in spin() for many timer ticks.  Recorded by the driver,
# with and without --kernel: at least 64 user-ring page faults in the page
# range, each at an instruction of touch_pages; kernel-ring page faults in
# the read buffer; a local-timer interrupt (vector 236) in spin; the user
# instruction counts are those of the ptrace backend (which records no
# interrupts); no asynchronous frame in the call flow.
. /pt/cases/lib.inc
npages=64
rounds=5000	# spin iterations: 8 instructions each, dozens of timer ticks under TCG

# in_range ADDR LO HI: LO <= ADDR < HI (hex, shell arithmetic)
in_range() {
	[ $(($1)) -ge $(($2)) ] && [ $(($1)) -lt $(($3)) ]
}
# faults DUMP RING LO HI: page-fault records in ring RING with an address in [LO, HI)
faults() {
	_n=0
	for _a in $(grep 'ASYNC .*kind 4 number 14 .* ring '"$2"' ' "$1" |
		    sed 's/.* address \(0x[0-9a-f]*\) .*/\1/'); do
		in_range $_a $3 $4 && _n=$((_n + 1))
	done
	echo $_n
}
# flow_faults FLOW FUNC LO HI: '~ page fault' lines in FUNC with an address in [LO, HI)
flow_faults() {
	_n=0
	for _a in $(grep -- "~ page fault at 0x[0-9a-f]* (.*) in $2\$" "$1" |
		    sed 's/.*~ page fault at \(0x[0-9a-f]*\) .*/\1/'); do
		in_range $_a $3 $4 && _n=$((_n + 1))
	done
	echo $_n
}
# user_counts TRACE: post counts' rows of the user ring, without their percent
# (of all the trace's steps: the driver's holds kernel steps too) and comments
user_counts() {
	post -i "$1" counts --ring user 2>&1 | grep -v '^#' | awk '{ $2 = ""; print }'
}

ref=ptrace.counts
t0=$(date +%s)
pitrace record --backend ptrace -o p -- $PT_PROGS/vm_faults $rounds >p.out 2>&1
check_eq async-ptrace-status "exit status of the ptrace recording" 0 $?
user_counts p >$ref

for mode in user kernel; do
	opt=
	[ $mode = kernel ] && opt=--kernel
	pitrace record $opt -o $mode -- $PT_PROGS/vm_faults $rounds >$mode.out 2>&1
	check_eq async-$mode-status "exit status of pitrace record $opt" 0 $?
	check_eq async-$mode-output "program output" "vm_faults ok" "$(grep '^vm_faults' $mode.out)"
	set -- $(sed -n 's/^pages //p' $mode.out) $(sed -n 's/^buffer //p' $mode.out)
	[ $# = 4 ] || { cat $mode.out; echo "FAIL async-$mode-ranges: no page ranges printed"; continue; }
	plo=$1 phi=$2 blo=$3 bhi=$4
	# Only what the checks read is kept (a --kernel dump has a line per kernel step):
	# the ASYNC records, what follows each kernel-ring fault, the number of RING records.
	post -i $mode dump --steps 2>&1 | awk '
		/ ASYNC / { print; if ($0 ~ /kind 4 number 14 .* ring 1 /) f = 1; next }
		f && $2 == "GAP" { print "AFTER gap"; f = 0 }
		f && $2 == "STEP" { print "AFTER " ($4 ~ /^0xffff/ ? "kernel-step" : "user-step"); f = 0 }
		$2 == "RING" && / ring 1 / { rings++ }
		/^post: error/ { print }
		END { print "RINGS " rings + 0 }' >$mode.dump
	grep '^post: error' $mode.dump && echo "FAIL async-$mode-dump: post dump failed"
	post -i $mode flow 2>&1 | grep -- ' ~ \|^post: error' >$mode.flow
	grep '^post: error' $mode.flow && echo "FAIL async-$mode-flow: post flow failed"

	n=$(faults $mode.dump 0 $plo $phi)
	echo "INFO $mode: $n user-ring page faults in the touched pages"
	[ "$n" -ge $npages ] && echo "PASS async-$mode-user-faults" ||
		echo "FAIL async-$mode-user-faults: $n user-ring page faults in [$plo, $phi), expected $npages or more"
	n=$(flow_faults $mode.flow touch_pages $plo $phi)
	[ "$n" -ge $npages ] && echo "PASS async-$mode-faults-in-touch_pages" || {
		grep -m 5 -- '~ page fault' $mode.flow
		echo "FAIL async-$mode-faults-in-touch_pages: $n faults in touch_pages, expected $npages or more"; }
	n=$(faults $mode.dump 1 $blo $bhi)
	echo "INFO $mode: $n kernel-ring page faults in the read buffer"
	[ "$n" -ge 1 ] && echo "PASS async-$mode-kernel-faults" ||
		echo "FAIL async-$mode-kernel-faults: no kernel-ring page fault in [$blo, $bhi)"
	n=$(grep -c -- '~ interrupt vector 236 (local timer) in spin$' $mode.flow)
	echo "INFO $mode: $n local-timer interrupts in spin; all interrupts: $(grep -c 'ASYNC .*kind 3 ' $mode.dump), irqs: $(grep -c 'ASYNC .*kind 5 ' $mode.dump)"
	[ "$n" -ge 1 ] && echo "PASS async-$mode-timer-in-spin" || {
		grep -m 5 -- '~ interrupt' $mode.flow
		echo "FAIL async-$mode-timer-in-spin: no local-timer interrupt in spin"; }
	# the IPIs that don't publish their frame (irq work, reschedule) get it from the unwinder
	n=$(grep -c 'ASYNC .* ring 2 (unknown)' $mode.dump)
	check_eq async-$mode-rings-known "records whose interrupted ring is unknown" 0 "$n"
	grep -q 'ASYNC .*kind 3 number 236 (interrupt: local timer) ring 0 (user) pc 0x' $mode.dump &&
		echo "PASS async-$mode-timer-record" ||
		echo "FAIL async-$mode-timer-record: no user-ring vector 236 record in post dump"

	user_counts $mode >$mode.counts
	if cmp -s $ref $mode.counts; then
		echo "PASS async-$mode-counts-equal-ptrace"
	else
		diff $ref $mode.counts | grep '^[<>]' | head -n 20 | sed 's/^/INFO counts (< ptrace, > driver): /'
		echo "FAIL async-$mode-counts-equal-ptrace: user counts differ from the ptrace backend's"
	fi
	post -i $mode arc --check >$mode.check 2>&1
	check_eq async-$mode-no-async-frames "post arc --check" "async 0 invariants: hold" \
		"$(sed -n 's/.* \(async [0-9]*\) .*/\1/p' $mode.check) $(grep '^invariants' $mode.check)"
	post -i $mode info >$mode.info 2>&1
	echo "INFO $mode: $(($(date +%s) - t0)) s since the case started"
	grep '^async:\|^interrupts:\|^page faults:' $mode.info | sed 's/^/INFO '$mode' info: /'
	n=$(sed -n 's/^page faults: *\([0-9]*\) (user \([0-9]*\), kernel \([0-9]*\).*/\2 \3/p' $mode.info)
	set -- $n
	[ "${1:-0}" -ge $npages ] && [ "${2:-0}" -ge 1 ] && echo "PASS async-$mode-info" ||
		echo "FAIL async-$mode-info: post info says: $(grep '^page faults' $mode.info)"
done

# --kernel: the read's stepping goes on after the fault in its copy to user
# (or ends at a GAP when the fault handler slept): kernel-ring faults are
# followed by kernel steps.
[ -s kernel.dump ] && {
	sed -n 's/^AFTER //p' kernel.dump | sort | uniq -c >after.out
	echo "INFO kernel: what follows a kernel-ring fault: $(tr -s ' \n' ' ' <after.out)"
	grep -q ' kernel-step$' after.out && echo "PASS async-kernel-stepping-goes-on" ||
		echo "FAIL async-kernel-stepping-goes-on: no kernel step after a kernel-ring fault"
	n=$(sed -n 's/^RINGS //p' kernel.dump)
	[ "$n" -ge 1 ] && echo "PASS async-kernel-steps" || echo "FAIL async-kernel-steps: no kernel-ring steps"
}
