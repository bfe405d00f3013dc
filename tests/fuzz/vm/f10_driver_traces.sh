# SPDX-License-Identifier: GPL-2.0
# Seeds for the post fuzzer, guest half (tests/fuzz/mkcorpus.sh): small
# driver traces, exported to the host: per-CPU step streams with signals,
# blocks, counts, threads, fork and exec, kernel steps, and the interrupt,
# exception and irq records.  Not a test: tests/vm/run.sh runs it only when
# PT_VM_CASES_DIR names this directory.
. /pt/cases/lib.inc
rec() {	# rec NAME PITRACE-RECORD-ARGS...: a driver trace, exported as NAME.tgz
	_name=$1
	shift
	pitrace record --backend driver -o "$_name" "$@" >"$_name.out" 2>&1
	echo "INFO $_name: exit $?: $(tail -n 1 "$_name.out")"
	rm -f "$_name/kallsyms" "$_name/modules"	# megabytes: mkcorpus.sh gives its own
	tar czf "$_name.tgz" "$_name" && export_file "$_name.tgz" "$_name.tgz"
}
rec drv-signal -- "$PT_PROGS/vm_signal"
rec drv-block --mode block -- "$PT_PROGS/vm_signal"
rec drv-count --mode count -- "$PT_PROGS/vm_loop"
rec drv-zstd -z -- "$PT_PROGS/vm_syscalls"
rec drv-kernel --kernel -- "$PT_PROGS/vm_syscalls"
rec drv-threads -- "$PT_PROGS/vm_threads"
rec drv-forkexec -- "$PT_PROGS/vm_forkexec" "$PT_PROGS/vm_signal"
rec drv-faults -- "$PT_PROGS/vm_faults"
echo "PASS f10-recorded"
