#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel source lines from a vmlinux with DWARF.  A stand-in kernel (a small
# C file with -g, linked static at the kernel's address, with a build-id)
# and a synthetic driver trace (tests/progs/mkktrace) whose kallsyms
# snapshot has the stand-in's functions moved by a KASLR slide and whose
# kernel-ring steps run through them.  Every line post shows must be
# addr2line's on the stand-in at address - slide; the vmlinux is found by
# --vmlinux, by the recorded build-id under --debug-dir and by the traced
# release; another kernel's image gets one warning and kallsyms names.
. "$(dirname "$0")/lib.sh"
[ -x "$PROGS/mkktrace" ] || skip "mkktrace not built (make progs)"
for tool in addr2line objdump nm readelf; do
	command -v $tool >/dev/null || skip "$tool not installed (binutils)"
done

# Leaf functions of straight-line code: executing each body in address
# order is what a CPU does, so the step sequence is a real one.
cat >kern.c <<'EOF'
int kf_scale(int x)
{
	int y = x * 3;

	y += 7;
	return y;
}

int kf_mix(int a, int b)
{
	int c = a ^ b;

	c <<= 2;
	return c - a;
}

long kf_wide(long v)
{
	long w = v >> 4;

	return w + v;
}

void _start(void)
{
	for (;;)
		;
}
EOF
kcc() {	# kcc OUT FLAGS...: kern.c as a kernel image is linked
	local out=$1
	shift
	gcc -g -ffreestanding -fno-pic -mcmodel=kernel -nostdlib -static -no-pie \
		-Wl,-Ttext-segment=0xffffffff81000000 -Wl,--build-id "$@" -o "$out" kern.c ||
		fail "cannot build the stand-in kernel $out"
}
kcc kern -O0
kcc other -O1	# another build of the same source: other code, other build-id
build_id() { readelf -n "$1" | sed -n 's/^ *Build ID: *//p'; }
bid=$(build_id kern)
[ ${#bid} -ge 8 ] || fail "the stand-in has no build-id"
[ "$(build_id other)" != "$bid" ] || fail "both stand-ins have build-id $bid"

slide=$((0x2a00000))
# kallsyms as /proc shows it: "addr type name", addresses moved by the slide.
nm kern | awk '$2 ~ /^[tTwW]$/ { print $1, $2, $3 }' | while read -r a t n; do
	printf '%016x %s %s\n' $((0x$a + slide)) "$t" "$n"
done >kallsyms
[ "$(grep -c ' kf_' kallsyms)" = 3 ] || fail "kallsyms: $(cat kallsyms)"
# The steps: every instruction of the three functions once, in address order.
objdump -d --no-show-raw-insn kern |
	awk '/^[0-9a-f]+ <.*>:$/ { fn = substr($2, 2, length($2) - 3) }
	     /^ *[0-9a-f]+:\t/ && fn ~ /^kf_/ { sub(":", "", $1); print $1 }' >insns
nsteps=$(wc -l <insns)
[ "$nsteps" -ge 20 ] || fail "only $nsteps instructions in the stand-in's functions"
pcs=$(while read -r a; do printf '0x%x,' $((0x$a + slide)); done <insns)
"$PROGS/mkktrace" t --kallsyms kallsyms --pcs "${pcs%,}" --release 9.9-pt-test \
	--build-id "$bid" || fail "mkktrace"
"$PROGS/mkktrace" t-nobid --kallsyms kallsyms --pcs "${pcs%,}" --release 9.9-pt-test ||
	fail "mkktrace without build-id"

# The header carries the build-id: post info and post dump show it.
"$POST" -i t info >info.out || fail "post info"
grep -qx "build-id: *$bid" info.out || fail "post info shows no build-id $bid: $(cat info.out)"
"$POST" -i t-nobid info | grep -q "^build-id:" &&
	fail "post info shows a build-id that was not recorded"
"$POST" -i t dump | grep -q "ATTR KERNEL_BUILD_ID .*$bid" ||
	fail "post dump does not name the KERNEL_BUILD_ID attribute"

# The oracle: addr2line at the unslid address, one "file:line" per step.
addr2line -e kern $(sed 's/^/0x/' insns) >oracle
[ "$(grep -c ':[0-9][0-9]*$' oracle)" = "$nsteps" ] || fail "addr2line: $(cat oracle)"

# post steps: "index tid address symbol+offset file:line ...": file's basename.
steps_src() {	# steps_src OUT: "address symbol source" per step
	awk '$1 ~ /^[0-9]+$/ { print $3, $4, $5 }' "$1"
}
expect_steps_lines() {	# expect_steps_lines WHAT OUT
	local i=0 addr sym src want
	[ "$(steps_src "$2" | wc -l)" = "$nsteps" ] || fail "$1: $(cat "$2")"
	while read -r addr sym src; do
		i=$((i + 1))
		want=$(sed -n "${i}p" oracle)
		[ "$src" = "kern.c:${want##*:}" ] ||
			fail "$1: step $i at $addr ($sym) shows $src, addr2line says $want"
		[ "$((0x$addr - slide))" = "$((0x$(sed -n "${i}p" insns)))" ] ||
			fail "$1: step $i at $addr, expected 0x$(sed -n "${i}p" insns) + slide"
	done < <(steps_src "$2")
}

"$POST" -i t --vmlinux kern steps >steps.out 2>err || fail "steps --vmlinux: exit $?: $(cat err)"
[ ! -s err ] || fail "steps --vmlinux: unexpected stderr: $(cat err)"
expect_steps_lines "steps --vmlinux" steps.out
grep -q 'kf_mix+0x' steps.out || fail "steps: no kf_mix names: $(cat steps.out)"

# counts --by line: the count of every file:line is the number of steps
# addr2line puts on it.
sort oracle | uniq -c | awk '{ print $2, $1 }' | sort >want.lines
"$POST" -i t counts --by line --vmlinux=kern >out || fail "counts --by line: exit $?"
awk '$3 == "[kernel]" { print $4, $1 }' out | sort >got.lines
expect_same_file "counts --by line --vmlinux" want.lines got.lines

# callgrind export: callgrind_annotate's annotation of kern.c (the whole file,
# a row per source line) gives each line the same count; every instruction
# address in the file is the vmlinux's own (the KASLR slide taken off).
"$POST" -i t export --format callgrind -o cg.out --vmlinux kern || fail "export: exit $?"
callgrind_annotate --auto=yes --context=100000 cg.out >ann 2>err && [ ! -s err ] ||
	fail "callgrind_annotate: $(cat err)"
awk -v f="$TMP/kern.c" '/^-- Auto-annotated source: / { on = ($NF == "kern.c"); n = 0; next }
     on && /^---/ { if (++dash == 2) on = 0; next }
     on && /^Ir/ { getline; body = 1; next }
     on && body { n++; if ($1 ~ /^[0-9,]+$/) { c = $1; gsub(",", "", c); print f ":" n, c } }' ann |
	sort >got.cg
expect_same_file "callgrind_annotate's annotation of kern.c" want.lines got.cg
awk '/^0x[0-9a-f]+ [0-9]+ [0-9]+$/ { print substr($1, 3) }' cg.out | sort -u >cg.addrs
sort -u insns | sed 's/^0*//' >want.addrs
expect_same_file "instruction addresses in the callgrind export" want.addrs cg.addrs

# Found without --vmlinux: by the recorded build-id under --debug-dir ...
mkdir -p dbg/.build-id/${bid:0:2}
ln -s "$TMP/kern" "dbg/.build-id/${bid:0:2}/${bid:2}.debug"
"$POST" -i t --debug-dir dbg steps >by-bid.out 2>err || fail "steps --debug-dir: exit $?"
[ ! -s err ] || fail "steps --debug-dir: unexpected stderr: $(cat err)"
expect_same_file "steps found by build-id" steps.out by-bid.out
# ... and by the traced kernel's release (not the host's) when none is recorded.
mkdir -p dbg2/boot
cp kern dbg2/boot/vmlinux-9.9-pt-test
"$POST" -i t-nobid --debug-dir=dbg2 steps >by-rel.out 2>err || fail "steps by release: exit $?"
[ ! -s err ] || fail "steps by release: unexpected stderr: $(cat err)"
sed 1d steps.out >a
sed 1d by-rel.out >b
expect_same_file "steps found by release" a b
# Nothing to be found: kallsyms names, no lines, and no warning.
"$POST" -i t-nobid steps >none.out 2>err || fail "steps without vmlinux: exit $?"
[ ! -s err ] || fail "steps without vmlinux: unexpected stderr: $(cat err)"
[ "$(steps_src none.out | awk '$3 == "??"' | wc -l)" = "$nsteps" ] ||
	fail "steps without vmlinux shows lines: $(cat none.out)"

# Another kernel's image: one warning saying why, kallsyms names, no lines.
expect_refused() {	# expect_refused WHAT TRACE VMLINUX WARNING-REGEX
	"$POST" -i "$2" --vmlinux "$3" steps >refused.out 2>err || fail "$1: exit $?"
	[ "$(wc -l <err)" = 1 ] && grep -Eq "$4; $why\$" err ||
		fail "$1: expected one warning /$4; $why/, got: $(cat err)"
	[ "$(steps_src refused.out | awk '$3 == "??"' | wc -l)" = "$nsteps" ] ||
		fail "$1: lines from a refused vmlinux: $(cat refused.out)"
	diff <(steps_src steps.out | cut -d' ' -f1,2) <(steps_src refused.out | cut -d' ' -f1,2) \
		>/dev/null || fail "$1: kallsyms names differ from the matching vmlinux's"
}
why="kernel functions from kallsyms, no kernel source lines"
expect_refused "other build-id" t other "^post: warning: vmlinux other is another kernel \
\\(build-id $(build_id other), the traced kernel's is $bid\\)"
expect_refused "symbols at no common offset" t-nobid other "^post: warning: vmlinux other \
does not match the trace's kallsyms \\([0-9]+ of [0-9]+ sampled functions at one offset\\)"
expect_refused "missing file" t no-such-vmlinux \
	"^post: warning: vmlinux no-such-vmlinux: No such file or directory"

# post annotate of a kernel function: the vmlinux's instructions (objdump's
# addresses, the slide taken off), each run once, under addr2line's lines,
# with kern.c's text; without the vmlinux, the addresses that ran and why.
"$POST" -i t annotate --vmlinux kern --symbol kf_mix >ann.out 2>err || fail "annotate --vmlinux: $(cat err)"
[ ! -s err ] || fail "annotate --vmlinux: unexpected stderr: $(cat err)"
grep -qx "# source: $TMP/kern.c" ann.out || fail "annotate: $(grep '^# source' ann.out)"
objdump -d --no-show-raw-insn --disassemble=kf_mix kern |
	awk '/^ *[0-9a-f]+:\t/ { sub(":", "", $1); print $1 }' >want.insns
awk '!/^#/ && $3 ~ /:$/ { sub(":", "", $3); print $3 }' ann.out >got.insns
expect_same_file "kf_mix's instructions" want.insns got.insns
[ "$(awk '!/^#/ && $3 ~ /:$/ && $1 != 1' ann.out | wc -l)" = 0 ] ||
	fail "annotate: an instruction of kf_mix did not run once: $(cat ann.out)"
awk '!/^#/ { f = $3 == "*" ? 4 : 3 } !/^#/ && $f ~ /^[0-9]+$/ { print "'"$TMP"'/kern.c:" $f, $1 }' ann.out | sort >got.kflines
grep -F -f <(addr2line -e kern $(sed 's/^/0x/' want.insns) | sort -u) want.lines >want.kflines
expect_same_file "kf_mix's lines in annotate" want.kflines got.kflines
grep -q 'int c = a ^ b;$' ann.out || fail "annotate: no source text of kf_mix"
"$POST" -i t-nobid annotate --symbol kf_mix >noann.out 2>err || fail "annotate without vmlinux"
grep -qx '# source: none: no debug vmlinux: kernel source lines need one (--vmlinux, --debug-dir)' noann.out ||
	fail "annotate without vmlinux: $(grep '^# source' noann.out)"
grep -q "^# code: the kernel's code needs its vmlinux" noann.out || fail "annotate: $(grep '^# code' noann.out)"
[ "$(grep -c '(unavailable)$' noann.out)" = "$(wc -l <want.insns)" ] ||
	fail "annotate without vmlinux: not the addresses that ran: $(cat noann.out)"

run_expect_status "--vmlinux without a path" 2 "$POST" -i t steps --vmlinux 2>err
grep -q "^post: error: steps: option --vmlinux needs an argument (FILE)" err || fail "usage error: $(cat err)"
echo PASS
