#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel source lines, host half (see kk60_kernel_lines.sh): the guest's
# --kernel trace resolved with the booted kernel's vmlinux, as make deps
# caches it from linux-image-RELEASE-dbg.  The trace must carry that
# vmlinux's build-id, the getpid system call must resolve to kernel/sys.c,
# and sampled kernel steps must show addr2line's line at address - slide,
# the slide taken from the trace's kallsyms and nm, not from post.
# The oracle is LLVM's addr2line: binutils' 2.40 names the wrong file for
# some DWARF 5 line tables (out-of-line pmd_val at paravirt.h:458 comes
# out as mm/memory.c:458, a comment there, the same line number in the
# CU's own file).
CACHE=${PT_DEBUG_CACHE:-/var/cache/pitrace/debug}
V=$CACHE/boot/vmlinux-$PT_RELEASE
POST=$PT_BIN/post
check_eq() {	# check_eq NAME WHAT EXPECTED ACTUAL (as lib.inc's, which is the guest's)
	if [ "$3" = "$4" ]; then echo "PASS $1"; else echo "FAIL $1: $2: expected $3, got $4"; fi
}
if [ ! -f "$V" ]; then
	echo "FAIL kk60-vmlinux: $V missing (run 'make deps': it caches Debian's debug vmlinux)"
	exit 0
fi
for tool in llvm-addr2line nm readelf; do
	command -v $tool >/dev/null || { echo "FAIL kk60-host-tools: $tool missing (make deps)"; exit 0; }
done
# lines ADDRS: addr2line's file:line for each address (hex, as post prints
# it) at address - slide, a line each, in one run
lines() {
	while read -r a; do printf '%#x\n' $((0x$a - slide)); done <"$1" |
		llvm-addr2line -e "$V" | sed 's/ (discriminator.*//'
}
if [ ! -s "$PT_EXPORT/kk60-trace.tgz" ] || ! tar xzf "$PT_EXPORT/kk60-trace.tgz"; then
	echo "FAIL kk60-export: no trace came out of the guest"
	exit 0
fi
echo "PASS kk60-export"

# The build-id the collector recorded (a hex string in the header) is the vmlinux's.
bid=$(readelf -n "$V" | sed -n 's/^ *Build ID: *//p')
if strings t/header | grep -qx "$bid"; then
	echo "PASS kk60-build-id"
else
	echo "FAIL kk60-build-id: the trace does not record $V's build-id $bid"
fi

# KASLR slide: _stext in the trace's kallsyms minus _stext in the vmlinux.
run=$(awk '$3 == "_stext" { print $1; exit }' t/kallsyms)
link=$(nm "$V" | awk '$3 == "_stext" { print $1; exit }')
if [ -z "$run" ] || [ -z "$link" ]; then
	echo "FAIL kk60-slide: no _stext (kallsyms '$run', vmlinux '$link')"
	exit 0
fi
slide=$((0x$run - 0x$link))
echo "INFO kk60: KASLR slide $(printf '%#x' $slide)"

# The guest's program is the host's build of it: /pt/progs/X is $PT_PROGS/X.
mkdir -p symfs/pt && ln -s "$PT_PROGS" symfs/pt/progs
POST=("$POST" --symfs symfs)
if ! "${POST[@]}" -i t --vmlinux "$V" steps >steps.out 2>err; then
	echo "FAIL kk60-steps: post steps failed: $(head -n 3 err)"
	exit 0
fi
if [ -s err ]; then
	echo "FAIL kk60-no-warning: $(head -n 3 err)"
else
	echo "PASS kk60-no-warning"
fi
# "step tid address symbol+offset file:line ...": the kernel's steps
awk '$1 ~ /^[0-9]+$/ && $3 ~ /^ffff/ { print $3, $4, $5 }' steps.out >ksteps
nk=$(wc -l <ksteps)
echo "INFO kk60: $nk kernel steps, $(awk '$3 != "??"' ksteps | wc -l) with a source line"

# The getpid system call (its entry's name is an alias choice): each of its
# instructions shows addr2line's line (inlined helpers' lines included, as
# current.h for "current"), and its own lines are kernel/sys.c.
awk '$2 ~ /^(__x64|__do|__ia32)_sys_getpid\+/' ksteps | sort -u >getpid
if [ ! -s getpid ]; then
	echo "FAIL kk60-getpid: no steps in the getpid system call"
else
	bad=0 sys_line=
	cut -d' ' -f1 getpid >getpid.addr
	lines getpid.addr >getpid.want
	while read -r addr sym src && read -r want <&3; do
		case $want in */kernel/sys.c:[0-9]*) sys_line=${want##*:} ;; esac
		[ "$src" = "${want##*/}" ] ||
			{ bad=$((bad + 1)); echo "  $sym: post $src, addr2line $want"; }
	done <getpid 3<getpid.want
	check_eq kk60-getpid-lines "getpid instructions whose line differs from addr2line's" 0 $bad
	if [ -z "$sys_line" ]; then
		echo "FAIL kk60-getpid-sys-c: addr2line puts no getpid instruction in kernel/sys.c"
	elif "${POST[@]}" -i t --vmlinux "$V" counts --by line --ring kernel >lines.out 2>&1 &&
		grep -q -E " [^ ]*kernel/sys\.c:$sys_line\$" lines.out; then
		echo "PASS kk60-getpid-sys-c"
	else
		echo "FAIL kk60-getpid-sys-c: no kernel/sys.c:$sys_line in post counts --by line"
	fi
fi

# Every kernel address stepped: post's line is addr2line's at address - slide.
if [ "$nk" -lt 50 ]; then
	echo "FAIL kk60-kernel-lines: only $nk kernel steps"
else
	sort -u -k1,1 ksteps >kaddrs
	cut -d' ' -f1 kaddrs >kaddrs.addr
	lines kaddrs.addr >kaddrs.want
	bad=$(paste -d' ' kaddrs kaddrs.want | awk '{
		want = $4; sub(/.*\//, "", want); if (want ~ /^\?\?:/) want = "??"
		if ($3 != want && ++bad <= 10)
			print "  " $1 " " $2 ": post " $3 ", addr2line " $4 >"/dev/stderr"
	} END { print bad + 0 }')
	echo "INFO kk60: $(wc -l <kaddrs) distinct kernel addresses compared with addr2line"
	check_eq kk60-kernel-lines "kernel addresses whose line differs from addr2line's" 0 "$bad"
fi

# Found by the recorded build-id alone: a debug directory with only the link.
mkdir -p dbg/.build-id/${bid:0:2}
ln -s "$V" "dbg/.build-id/${bid:0:2}/${bid:2}.debug"
"${POST[@]}" -i t --debug-dir dbg steps >by-bid.out 2>err
if cmp -s steps.out by-bid.out && [ ! -s err ]; then
	echo "PASS kk60-found-by-build-id"
else
	echo "FAIL kk60-found-by-build-id: post --debug-dir differs from --vmlinux: $(head -n 2 err)"
fi
