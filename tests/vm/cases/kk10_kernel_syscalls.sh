# SPDX-License-Identifier: GPL-2.0
# Kernel mode (--kernel): a traced program making getpid, pipe write and
# read, mmap/munmap and open/close calls in a loop.  post arc shows each
# system call as a call from its user call site into the kernel's syscall
# function, with the kernel paths below (the names are the kernel's own,
# from the trace's kallsyms snapshot); getpid takes the same number of
# kernel instructions on every call; the program's output and status are
# as without tracing.
. /pt/cases/lib.inc
rounds=20
pitrace record --kernel -o t -- $PT_PROGS/kern_syscalls $rounds >rec.out 2>&1
check_eq kk-record-status "exit status of pitrace record" 0 $?
check_eq kk-program-output "program output" "kern_syscalls $rounds rounds ok" \
	"$(grep '^kern_syscalls' rec.out)"
post -i t info >info.out 2>&1
grep -q '^features:.* kernel' info.out && echo "PASS kk-feature-kernel" ||
	echo "FAIL kk-feature-kernel: $(grep features info.out)"
post -i t arc >arc.out 2>&1 || { cat arc.out; echo "FAIL kk-arc: post arc failed"; }

# arc_block FUNC: the block of post arc whose function (the line with
# percentages) is FUNC in the kernel
arc_block() {
	awk -v f="$1" '/^#/ { if (hit) exit; n = 0; next }
		{ blk[n++] = $0 }
		$0 ~ "% +" f " \\[kernel\\]$" { hit = 1 }
		END { if (hit) for (i = 0; i < n; i++) print blk[i] }' arc.out
}
# has_arc NAME FUNC DIRECTION OTHER: FUNC's block lists OTHER as caller (<) or callee (>)
has_arc() {
	if arc_block "$2" | grep -q -E "$3 $4( |\$)"; then
		echo "PASS $1"
	else
		echo "FAIL $1: no arc $2 $3 $4"
		arc_block "$2" | head -n 20
	fi
}
getpid_fn=$(grep -o -E '(__x64|__do|__ia32)_sys_getpid \[kernel\]' arc.out | head -n 1 | cut -d' ' -f1)
[ -n "$getpid_fn" ] && echo "PASS kk-arc-getpid" || echo "FAIL kk-arc-getpid: no kernel getpid function in post arc"
has_arc kk-arc-getpid-from-user "${getpid_fn:-none}" '<' syscall
has_arc kk-arc-read-from-user __x64_sys_read '<' read
has_arc kk-arc-read-path __x64_sys_read '>' ksys_read
has_arc kk-arc-read-vfs ksys_read '>' vfs_read
has_arc kk-arc-write-from-user __x64_sys_write '<' write
has_arc kk-arc-write-path __x64_sys_write '>' ksys_write
has_arc kk-arc-write-vfs ksys_write '>' vfs_write
grep -q -E '% +pipe_read \[kernel\]$' arc.out && echo "PASS kk-arc-pipe-read" || echo "FAIL kk-arc-pipe-read: pipe_read not in post arc"
grep -q -E '% +pipe_write \[kernel\]$' arc.out && echo "PASS kk-arc-pipe-write" || echo "FAIL kk-arc-pipe-write: pipe_write not in post arc"
has_arc kk-arc-mmap-from-user __x64_sys_mmap '<' mmap
has_arc kk-arc-munmap-from-user __x64_sys_munmap '<' munmap
has_arc kk-arc-openat-from-user __x64_sys_openat '<' open
has_arc kk-arc-close-from-user __x64_sys_close '<' close

# getpid: one call per round plus the program's first; the same count each time
post -i t flow --condensed >flow.out 2>&1
awk -v f="${getpid_fn:-none}" '$6 == f { print $3 }' flow.out >getpid.counts
check_eq kk-getpid-calls "getpid calls in the flow" $((rounds + 1)) "$(wc -l <getpid.counts)"
spread=$(sort -n getpid.counts | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print hi - lo }')
echo "INFO kernel getpid: $(sort -n getpid.counts | uniq -c | tr -s ' \n' ' ')(count instructions)"
[ -s getpid.counts ] && [ "$spread" -le 3 ] && echo "PASS kk-getpid-constant" ||
	echo "FAIL kk-getpid-constant: kernel instructions per getpid vary by $spread: $(sort -n getpid.counts | uniq -c | tr -s ' \n' ' ')"
