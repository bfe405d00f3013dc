#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmarks of the ptrace backend (figures, not pass/fail): steps/s of
# `pitrace record` next to a bare PTRACE_SINGLESTEP loop (tests/bench/
# bare_step.c) over the same programs in the same run, pinned the same way,
# and the trace's bytes per step, plain and zstd-compressed.
# Environment: PT_BIN (default bin), PT_PROGS (default build/progs),
# BENCH_PROGS (single-threaded programs in PT_PROGS, default "pt_loops pt_hello":
# the bare loop steps one thread).
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=${PT_BIN:-bin}
PROGS=${PT_PROGS:-build/progs}
LIST=${BENCH_PROGS:-pt_loops pt_hello}
TMP=$(mktemp -d /tmp/pitrace-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

${CC:-gcc} -O2 -Wall -o "$TMP/bare_step" tests/bench/bare_step.c || exit 1
for p in "$BIN/pitrace" "$BIN/post"; do
	[ -x "$p" ] || { echo "bench: $p not built (make all)"; exit 1; }
done

now() { date +%s.%N; }
# bytes per step over every stream, from post info's stream lines
# ("steps.tN  STEPS steps  BYTES bytes  X bytes/step [zstd]")
bps() {
	"$BIN/post" -i "$1" info | awk '$1 ~ /^steps\./ && $3 == "steps" && $5 == "bytes" {
		s += $2; b += $4 } END { if (s) printf "%.2f", b / s }'
}

printf "%-12s %10s %12s %12s %7s %12s %12s\n" program steps "bare st/s" "record st/s" ratio "bytes/step" "zstd b/step"
for name in $LIST; do
	prog=$PROGS/$name
	[ -x "$prog" ] || { echo "bench: $prog not built (make progs)"; continue; }
	read -r _ bsteps _ _ _ bare < <("$TMP/bare_step" "$prog" 2>/dev/null | tail -1)
	t0=$(now)
	"$BIN/pitrace" record -o "$TMP/t" -- "$prog" >/dev/null 2>&1
	t1=$(now)
	steps=$("$BIN/post" -i "$TMP/t" info | awk '$1 == "steps:" { print $2 }')
	rec=$(awk -v s="$steps" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", s / (b - a) }')
	plain=$(bps "$TMP/t")
	"$BIN/pitrace" record -z -o "$TMP/z" -- "$prog" >/dev/null 2>&1
	zstd=$(bps "$TMP/z")
	ratio=$(awk -v r="$rec" -v b="$bare" 'BEGIN { printf "%.2f", r / b }')
	printf "%-12s %10s %12s %12s %7s %12s %12s\n" "$name" "$steps" "$bare" "$rec" "$ratio" "$plain" "$zstd"
	[ "$bsteps" = "$steps" ] || echo "  ($name: the bare loop made $bsteps steps: it counts stops, not instructions)"
done
echo "record st/s includes start-up and writing the trace; bare st/s is the step loop alone."
PT_BIN=$BIN PT_PROGS=$PROGS tests/vm/bench.sh	# driver: recorded vs count-only steps/s in QEMU
