# SPDX-License-Identifier: GPL-2.0
# Kernel source lines, guest half: a --kernel trace of a getpid / pipe read
# loop, exported to the host (export_file), where kk60_kernel_lines.host.sh
# resolves it with the booted kernel's vmlinux from Debian's debug package
# (500+ MB: more than the guest can hold).
. /pt/cases/lib.inc
pitrace record --kernel -o t -- $PT_PROGS/kern_syscalls 3 >rec.out 2>&1
check_eq kk60-record-status "exit status of pitrace record" 0 $?
check_eq kk60-program-output "program output" "kern_syscalls 3 rounds ok" \
	"$(grep '^kern_syscalls' rec.out)"
[ -s t/kallsyms ] && echo "PASS kk60-kallsyms" || echo "FAIL kk60-kallsyms: no kallsyms snapshot in the trace"
tar czf t.tgz t
echo "INFO kk60: trace $(du -k t | tail -n 1 | cut -f1) KB, exported as $(du -k t.tgz | cut -f1) KB gzip"
export_file kk60-trace.tgz t.tgz
