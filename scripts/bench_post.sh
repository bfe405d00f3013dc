#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark of post (figures, not pass/fail): steps per CPU-second of every
# report on traces of 10M and 100M steps, each next to the floor the same
# run measures (`post info --read`: the streams read, decoded and merged,
# no report), and the wall-clock speed-up of decoding on every CPU over one.
# The traces: tests/progs/bench_calls (4 threads; qsort with a callback, a
# recursion, libc string calls) recorded with pitrace record, each thread cut
# at iteration()'s entries and one iteration's steps repeated through the
# real trace writer (tests/progs/mktrace --lists) to the size wanted; the
# threads take turns in runs of 20,000 steps.  They are made in a temporary
# directory and removed at exit.
# Environment: PT_BIN (default bin), PT_PROGS (default build/progs),
# BENCH_POST_SIZES (default "10000000 100000000"), BENCH_POST_GIANT=N: also
# counts and arc over an N-step trace (1000000000 for 1G), with peak RSS.
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=${PT_BIN:-bin}
PROGS=${PT_PROGS:-build/progs}
SIZES=${BENCH_POST_SIZES:-10000000 100000000}
# absolute: the trace's mapping names it, and symbols read only mappings of absolute paths
PROG=$(realpath -m "$PROGS/bench_calls")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pitrace-bench-post.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
for f in "$BIN/pitrace" "$BIN/post" "$PROG" "$PROGS/mktrace"; do
	[ -x "$f" ] || { echo "bench: $f not built (make all progs)"; exit 1; }
done

"$BIN/pitrace" record -o "$TMP/rec" -- "$PROG" >/dev/null 2>&1 || { echo "bench: cannot record $PROG"; exit 1; }
entry=$(nm "$PROG" | awk '$3 == "iteration" { print $1 }' | sed 's/^0*//')
load=$(readelf -lW "$PROG" | awk '$1 == "LOAD" && / R E / { print $3 ":" $6 ":" $2; exit }')
IFS=: read -r vaddr memsz off <<<"$load"
"$BIN/post" -i "$TMP/rec" steps --no-pager >"$TMP/rec.steps"

make_trace() {	# make_trace STEPS DIR
	python3 scripts/bench_trace.py "$entry" "$1" <"$TMP/rec.steps" >"$TMP/lists" 2>/dev/null &&
		"$PROGS/mktrace" "$2" --threads 4 --run 20000 --mmap "$PROG:$vaddr:$memsz:$off" \
			--lists "$TMP/lists"
}
cpu() {		# cpu CMD...: user+sys seconds, peak RSS KiB; output dropped
	/usr/bin/time -o "$TMP/time" -f "%U %S %M %e" "$@" >/dev/null 2>&1
	awk '{ printf "%.3f %d %.3f", $1 + $2, $3, $4 }' "$TMP/time"
}
floor() {	# floor TRACE THREADS: the read pass's CPU seconds
	"$BIN/post" --threads "$2" -i "$1" info --read | awk '$1 == "read:" { print $6 }'
}
REPORTS=("counts" "counts --by line" "profile" "arc" "tree" "flow"
	 "export --format callgrind" "export --format folded" "export --format chrome"
	 "export --format svg")

for n in $SIZES; do
	t=$TMP/t$n
	make_trace "$n" "$t" || { echo "bench: cannot make a $n-step trace"; exit 1; }
	steps=$("$BIN/post" -i "$t" info | awk '$1 == "steps:" { print $2 }')
	fl=$(floor "$t" 1)
	frate=$(awk -v s="$steps" -v c="$fl" 'BEGIN { printf "%.1f", s / c / 1e6 }')
	echo "post on $steps steps (4 threads, $(du -sm "$t" | cut -f1) MB): floor (read, decode, merge;" \
		"1 thread) ${frate}M steps/s"
	printf "  %-28s %10s %12s %8s %10s\n" report "CPU s" "M steps/s" "/floor" "peak RSS"
	for r in "${REPORTS[@]}"; do
		out=(--no-pager)
		[[ $r == export* ]] && out=(-o "$TMP/out")
		# shellcheck disable=SC2086
		read -r c rss _ < <(cpu "$BIN/post" --threads 1 -i "$t" $r "${out[@]}")
		awk -v r="$r" -v s="$steps" -v c="$c" -v f="$frate" -v m="$rss" 'BEGIN {
			v = s / c / 1e6; printf "  %-28s %10.2f %12.1f %8.2f %8d MB\n", r, c, v, v / f, m / 1024 }'
	done
	# the same work on one thread and on every CPU, wall-clock, one after the other
	for r in "info --read" "counts" "profile"; do
		read -r _ _ w1 < <(cpu "$BIN/post" --threads 1 -i "$t" $r)
		read -r _ _ wn < <(cpu "$BIN/post" -i "$t" $r)
		awk -v r="$r" -v a="$w1" -v b="$wn" -v n="$(nproc)" 'BEGIN {
			printf "  %-28s wall %.2f s on 1 thread, %.2f s on %d: speed-up %.2f\n", r, a, b, n, a / b }'
	done
	rm -rf "$t"
done

if [ -n "${BENCH_POST_GIANT:-}" ]; then
	t=$TMP/giant
	make_trace "$BENCH_POST_GIANT" "$t" || { echo "bench: cannot make the giant trace"; exit 1; }
	steps=$("$BIN/post" -i "$t" info | awk '$1 == "steps:" { print $2 }')
	echo "post on $steps steps ($(du -sm "$t" | cut -f1) MB):"
	for r in counts arc; do
		read -r c rss w < <(cpu "$BIN/post" -i "$t" $r --no-pager)
		awk -v r="$r" -v s="$steps" -v c="$c" -v m="$rss" -v w="$w" 'BEGIN {
			printf "  %-8s %.1f s CPU, %.1f s wall, %.1fM steps/s per CPU-second, peak RSS %d MB\n",
				r, c, w, s / c / 1e6, m / 1024 }'
	done
fi
