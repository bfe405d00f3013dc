#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The streams of a trace are decoded on --threads N threads and merged in
# order: every report is the same, byte for byte, for N = 1, 2 and 4, on a
# real recording of four threads (tests/progs/bench_calls), on that
# recording's threads scaled up through the real trace writer (taking turns
# in runs, as a recorder's threads do, over many chunks of every stream),
# and on a zstd trace of three threads.  The scaled trace's counts are known
# by construction: iteration() is called K+2 times in each of 4 threads.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"
PROG=$PROGS/bench_calls
[ -x "$PROG" ] && [ -x "$PROGS/mktrace" ] || skip "bench_calls or mktrace not built (make progs)"
"$PITRACE" record -o rec.data -- "$PROG" >/dev/null 2>&1 || fail "record bench_calls"
arc_verify rec.data
entry=$(nm "$PROG" | awk '$3 == "iteration" { print $1 }' | sed 's/^0*//')
load=$(readelf -lW "$PROG" | awk '$1 == "LOAD" && / R E / { print $3 ":" $6 ":" $2; exit }')
IFS=: read -r vaddr memsz off <<<"$load"
"$POST" -i rec.data steps --no-pager |
	python3 "$ROOT/scripts/bench_trace.py" "$entry" 600000 >lists 2>calls.txt ||
	fail "cutting the recording into iterations"
read -r threads calls <calls.txt
"$PROGS/mktrace" big.data --threads "$threads" --run 7000 --mmap "$PROG:$vaddr:$memsz:$off" \
	--lists lists || fail "mktrace --lists"
"$PROGS/mktrace" z.data --zstd --threads 3 --run 5000 --loop 3000 --steps 400000 ||
	fail "mktrace --zstd"

reports() {	# reports TRACE THREADS: every report into out.THREADS/
	local d=out.$2
	rm -rf "$d" && mkdir "$d"
	for r in "counts" "counts --by line" "counts --by thread" profile arc tree "tree --merged" \
		"flow --condensed" steps; do
		# shellcheck disable=SC2086
		"$POST" --threads "$2" -i "$1" $r --no-pager >"$d/${r// /_}" 2>&1 || fail "$r with $2 threads"
	done
	for f in callgrind folded chrome svg; do
		"$POST" --threads "$2" -i "$1" export --format $f -o "$d/$f" 2>/dev/null ||
			fail "export $f with $2 threads"
	done
}
for t in rec.data big.data z.data; do
	reports $t 1
	for n in 2 4; do
		reports $t $n
		diff -r out.1 out.$n >diff.txt || fail "$t: --threads $n differs from 1: $(head -5 diff.txt)"
	done
done

# the scaled trace: iteration() called K+2 times in each thread, one thread a stream
reports big.data 2
got=$(awk '$NF == "[bench_calls]" && $(NF-1) == "iteration" { print $1 }' out.2/profile | tr -d ,)
expect_eq "iteration's calls" "$((threads * calls))" "$got"
expect_eq "threads" "4" "$("$POST" -i big.data info | awk '$1 == "threads:" { print $2 }')"
echo "PASS: $threads threads, reports equal for --threads 1, 2, 4"
