#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make the post fuzzer's seed corpus, tests/fuzz/corpus (committed; run
# again only when the trace format changes): small real traces of the
# ptrace backend (plain and zstd, steps and blocks, signals, threads, forks,
# exec, longjmp, rep strings; static test programs, with the program
# itself for --symfs), synthetic ones (merged threads, lost steps, a deep
# recursion, kernel steps with their kallsyms), a pair for diff, and with
# --vm the driver's (per-CPU streams with signals, blocks, counts, kernel
# steps, threads, fork and exec, interrupts and page faults) from one boot
# of tests/fuzz/vm in QEMU.  Long streams keep their first records only
# (pack.py --max-stream), so the corpus stays well under 1 MB.
#
#   tests/fuzz/mkcorpus.sh [--vm | --vm-work DIR]     (after make all progs)
#
# --vm-work DIR takes the driver traces from an earlier boot's work
# directory (PT_VM_KEEP=1 PT_VM_WORK=DIR with PT_VM_CASES_DIR=tests/fuzz/vm).
set -eu
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=$ROOT/bin PROGS=$ROOT/build/progs OUT=$ROOT/tests/fuzz/corpus
PACK="python3 $ROOT/tests/fuzz/pack.py pack"
# Traces name the programs' paths: one that says nothing of where this tree is.
SEED=/tmp/pitrace-seed
FIX_CRC=1 FIX_COUNTS=2 FORCE=4
rm -rf "$SEED" && mkdir -p "$SEED/t" && cd "$SEED"
mkdir -p "$OUT"
rm -f "$OUT"/*.in

# The test programs, built here from copies of their sources as the Makefile
# builds them, so that their debug info names this directory, not the tree.
flags() { sed -n 's,^\(//\|#\) build: ,,p' "$1"; }
for p in arc_basic arc_recurse arc_tail arc_names labels vm_signal repmovs; do
	cp "$ROOT/tests/progs/$p.S" .
	# shellcheck disable=SC2046 # the source's build flags, split
	gcc -nostdlib -static -g -o "$p" "$p.S" $(flags "$p.S")
done
cp "$ROOT/tests/progs/deep_recursion.c" .
# shellcheck disable=SC2046
gcc -g -O0 -Wall -o deep_recursion deep_recursion.c $(flags deep_recursion.c)
# glibc programs, static: no dynamic loader's 100,000 steps before main
for p in arc_threads arc_signal pt_fid_fork arc_longjmp pt_fid_exec; do
	cp "$ROOT/tests/progs/$p.c" .
	# shellcheck disable=SC2046
	gcc -g -O0 -static -o "$p" "$p.c" $(flags "$p.c") -lpthread
done

rec() {	# rec NAME RECORD-ARGS...
	local name=$1
	shift
	"$BIN/pitrace" record -o "t/$name" "$@" >/dev/null 2>&1 || true
	[ -f "t/$name/header" ] || { echo "mkcorpus: no trace for $name" >&2; exit 1; }
}
# seed NAME REPORT FLAGS [--vdso] PACK-ARGS...: one corpus file (the vdso, 8 KiB, only if asked)
seed() {
	local name=$1 report=$2 flags=$3 skip=(--skip vdso)
	shift 3
	[ "${1:-}" = --vdso ] && { skip=(); shift; }
	$PACK --report "$report" --flags "$flags" --trim-pad "${skip[@]}" "$@" -o "$OUT/$name.in"
}
sym() { echo "--sym $SEED/$1=$SEED/$1"; }

rec basic -- ./arc_basic
rec cdeep -- ./deep_recursion
rec recurse -- ./arc_recurse
rec tail -z -- ./arc_tail
rec names -- ./arc_names
rec labels-block --mode block -- ./labels
rec signal -- ./vm_signal
rec repmovs -z -- ./repmovs
rec threads -- ./arc_threads
rec fork --follow-fork -- ./pt_fid_fork
rec csignal -z -- ./arc_signal
rec longjmp -- ./arc_longjmp
rec exec --follow-fork -- ./pt_fid_exec ./arc_basic

# shellcheck disable=SC2046 # sym's words
{
	seed ptrace-basic 8 $FIX_CRC t/basic $(sym arc_basic)
	seed ptrace-basic-vdso 12 0 --vdso t/basic $(sym arc_basic)
	seed ptrace-recurse 14 $FIX_CRC t/recurse $(sym arc_recurse)
	seed ptrace-c-recursion 9 $FIX_CRC t/cdeep $(sym deep_recursion)
	seed ptrace-tail-zstd 17 $FIX_CRC t/tail --decompress $(sym arc_tail)
	seed ptrace-tail-zstd-raw 2 0 t/tail $(sym arc_tail)
	seed ptrace-names 15 $FIX_CRC t/names $(sym arc_names)
	seed ptrace-block 13 $FIX_CRC t/labels-block $(sym labels)
	seed ptrace-signal 12 $FIX_CRC t/signal $(sym vm_signal)
	seed ptrace-repmovs-zstd-raw 16 0 t/repmovs $(sym repmovs)
	seed ptrace-threads 9 $((FIX_CRC | FIX_COUNTS)) t/threads --max-stream 3000
	seed ptrace-fork 6 $FIX_CRC t/fork --max-stream 3000
	seed ptrace-signal-c 10 $((FIX_CRC | FIX_COUNTS)) t/csignal --decompress --max-stream 4000
	seed ptrace-longjmp 18 $((FIX_CRC | FORCE)) t/longjmp --max-stream 4000
	seed ptrace-exec 19 $FIX_CRC t/exec --max-stream 3000
	seed ptrace-diff 20 $FIX_CRC t/basic --b t/recurse $(sym arc_basic) $(sym arc_recurse)
}

# Synthetic traces through the real writer (tests/progs/mktrace, mkktrace).
"$PROGS/mktrace" t/mt-threads --steps 600 --threads 3 --run 7 --loop 9
"$PROGS/mktrace" t/mt-lost --steps 200 --threads 2 --lost 17 --zstd
"$PROGS/mktrace" t/mt-block --steps 300 --mode block
# a recursion 3,000 levels deep: call, the deepest step, the returns
"$PROGS/mktrace" t/mt-deep --pcs 0x401000,0x401004@3000 --pcs 0x401008 --pcs 0x40100c@3000
seed synth-threads 12 $FIX_CRC t/mt-threads
seed synth-lost 5 $((FIX_CRC | FIX_COUNTS)) t/mt-lost --decompress
seed synth-block 4 $FIX_CRC t/mt-block
seed synth-deep 17 $FIX_CRC t/mt-deep
cat >kallsyms <<'EOF'
ffffffff81000000 T _stext
ffffffff81000100 T do_syscall_64
ffffffff81000400 t __x64_sys_getpid
ffffffff81000800 T entry_SYSCALL_64
ffffffffc0000000 t pt_probe	[pitrace]
EOF
"$PROGS/mkktrace" t/mkk --kallsyms kallsyms --release fuzz-seed \
	--pcs 0xffffffff81000800*3,0xffffffff81000100*5,0xffffffff81000400*9,0xffffffffc0000000*2
seed synth-kernel 8 $FIX_CRC t/mkk

# A trace of format version 4 (before the checksums of version 6), by the
# writer of the revision before that change.
old=$(git -C "$ROOT" log --format=%H -1 -G'define PT_FORMAT_VERSION 4$' -- include/pitrace/format.h)
if [ -n "$old" ]; then
	mkdir -p old && git -C "$ROOT" archive "$old~1" include util tests/progs/mktrace.c | tar -x -C old
	# shellcheck disable=SC2046 # its build flags, split
	(cd old && gcc -o mktrace tests/progs/mktrace.c $(sed -n 's,^// build: ,,p' tests/progs/mktrace.c))
	old/mktrace t/v4 --steps 400 --threads 2 --run 13
	seed synth-version4 16 0 t/v4
fi

work=
if [ "${1:-}" = --vm ]; then
	work=$(mktemp -d /tmp/pitrace-seed-vm.XXXXXX)
	PT_VM_CASES_DIR=$ROOT/tests/fuzz/vm PT_VM_KEEP=1 PT_VM_WORK=$work \
		PT_VM_KERNELS=${PT_VM_KERNELS:-$(ls /lib/modules | sort -V | tail -n 1)} \
		flock /tmp/pitrace-qemu.lock "$ROOT/tests/vm/run.sh" >"$work/run.log" 2>&1 || true
elif [ "${1:-}" = --vm-work ]; then
	work=$2
fi
if [ -n "$work" ]; then
	n=0
	for tgz in "$work"/export-*/drv-*.tgz; do
		[ -e "$tgz" ] || continue
		name=$(basename "$tgz" .tgz)
		tar xzf "$tgz" -C t
		seed "$name" $((n % 21)) $((FIX_CRC | FIX_COUNTS)) "t/$name" --max-stream 4000 \
			--decompress
		n=$((n + 1))
	done
	[ $n -gt 0 ] || { echo "mkcorpus: no driver trace came out of the VM ($work)" >&2; exit 1; }
	[ "$1" = --vm ] && rm -rf "$work"
fi
du -cb "$OUT"/*.in | tail -n 1 | sed 's/total/bytes in tests\/fuzz\/corpus/'
