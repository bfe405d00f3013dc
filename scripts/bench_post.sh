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
# Then traces of programs this project did not write, recorded as the bench
# runs (the synthetic traces' shape, one iteration repeated, suits runs,
# paths and replays; these do not): Debian's gzip, sort and sqlite3 whole,
# python3 through an --on window (PyEval_EvalCode of a -c script), and zlib
# built from Debian's source (its minigzip at gcc -O2).  BENCH_POST_REAL=0
# leaves them out.  Each report's first run is shown apart from its best:
# the first pays for reading symbols and files that the others find cached.
# Environment: PT_BIN (default bin), PT_PROGS (default build/progs),
# BENCH_POST_SIZES (default "10000000 100000000"), BENCH_POST_RUNS (default
# 3: each report's and the floor's best run is shown, and the first run's
# CPU), BENCH_POST_REAL (default 1), BENCH_CACHE (where zlib's source is
# kept, default ~/.cache/pitrace/bench), BENCH_POST_GIANT=N:
# also counts and arc over an N-step trace (1000000000 for 1G), with peak RSS.
#
# scripts/bench_post.sh --trace DIR [POST_OPTION...] prints the same table
# for a trace made elsewhere (tests/vm/bench/b20_post_trace.host.sh: a
# driver session in QEMU), the options (e.g. --buildid-dir) given to every
# post run.
set -u
# paths given are the caller's: absolute before the cd
[ "${1:-}" = --trace ] && [ -n "${2:-}" ] && set -- "$1" "$(realpath -m "$2")" "${@:3}"
cd "$(dirname "$0")/.." || exit 1
BIN=${PT_BIN:-bin}
PROGS=${PT_PROGS:-build/progs}
SIZES=${BENCH_POST_SIZES:-10000000 100000000}
RUNS=${BENCH_POST_RUNS:-3}
# absolute: the trace's mapping names it, and symbols read only mappings of absolute paths
PROG=$(realpath -m "$PROGS/bench_calls")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pitrace-bench-post.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
GIVEN=
if [ "${1:-}" = --trace ]; then
	GIVEN=${2:?--trace needs a trace directory}
	[ -d "$GIVEN" ] || { echo "bench: no trace directory $GIVEN"; exit 1; }
	shift 2
	[ -x "$BIN/post" ] || { echo "bench: $BIN/post not built (make all)"; exit 1; }
fi
POST_ARGS=("$@")
for f in "$BIN/pitrace" "$BIN/post" "$PROG" "$PROGS/mktrace"; do
	[ -n "$GIVEN" ] || [ -x "$f" ] || { echo "bench: $f not built (make all progs)"; exit 1; }
done

make_trace() {	# make_trace STEPS DIR
	python3 scripts/bench_trace.py "$entry" "$1" <"$TMP/rec.steps" >"$TMP/lists" 2>/dev/null &&
		"$PROGS/mktrace" "$2" --threads 4 --run 20000 --mmap "$PROG:$vaddr:$memsz:$off" \
			--lists "$TMP/lists"
}
cpu() {		# cpu CMD...: user+sys seconds (to the microsecond), peak RSS KiB, wall, and
		# the pass's CPU seconds when CMD says it (post -v: "pass: N steps in S s"); output dropped
	python3 -c '
import re, resource, subprocess, sys, time
t = time.monotonic()
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
w = time.monotonic() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
m = re.search(rb"pass: [0-9]+ steps in ([0-9.]+) s", p.stderr)
print("%.4f %d %.3f %s" % (r.ru_utime + r.ru_stime, r.ru_maxrss, w,
                           m.group(1).decode() if m else "-"))' "$@"
}
best() {	# best CMD...: cpu's figures of the run with the least CPU of RUNS,
		# then the first run's CPU seconds
	local k line b="" first=""
	for ((k = 0; k < RUNS; k++)); do
		line=$(cpu "$@")
		[ -n "$first" ] || first=${line%% *}
		if [ -z "$b" ] || awk -v a="${line%% *}" -v b="${b%% *}" 'BEGIN { exit !(a < b) }'; then
			b=$line
		fi
	done
	echo "$b $first"
}
floor() {	# floor TRACE THREADS: the read pass's CPU seconds, the best of RUNS
	local k f b=""
	for ((k = 0; k < RUNS; k++)); do
		f=$("$BIN/post" --threads "$2" -i "$1" "${POST_ARGS[@]}" info --read |
			awk '$1 == "read:" { print $6 }')
		if [ -z "$b" ] || awk -v a="$f" -v b="$b" 'BEGIN { exit !(a < b) }'; then
			b=$f
		fi
	done
	echo "$b"
}
post_streams() {	# post_streams TRACE: its backend and streams, for the table's title
	"$BIN/post" -i "$1" "${POST_ARGS[@]}" info | awk '$1 == "backend:" { b = $2 }
		$1 == "features:" { f = $0; sub(/^features: */, "", f) } $1 == "threads:" { t = $2 }
		$1 == "streams:" { s = $2 } END { printf "%s, %s threads, %s streams (%s)", b, t, s, f }'
}
REPORTS=("counts" "counts --by line" "profile" "arc" "tree" "flow"
	 "export --format callgrind" "export --format folded" "export --format chrome"
	 "export --format svg")

table() {	# table TRACE WHAT: every report's CPU next to the floor, and 1 vs every CPU
	local t=$1 steps fl frate r c rss pass first out w1 wn
	steps=$("$BIN/post" -i "$t" "${POST_ARGS[@]}" info | awk '$1 == "steps:" { print $2 }')
	fl=$(floor "$t" 1)
	frate=$(awk -v s="$steps" -v c="$fl" 'BEGIN { printf "%.1f", s / c / 1e6 }')
	echo "post on $steps steps ($2, $(du -sm "$t" | cut -f1) MB): floor (read, decode, merge;" \
		"1 thread) ${frate}M steps/s; best of $RUNS runs each"
	echo "  (CPU s: the whole process, start-up and symbols included; pass: the pass" \
		"alone, as the floor is measured)"
	printf "  %-28s %8s %8s %10s %7s %8s %10s %7s %9s\n" report "first s" "CPU s" "M steps/s" \
		"/floor" "pass s" "M steps/s" "/floor" "peak RSS"
	for r in "${REPORTS[@]}"; do
		out=(--no-pager)
		[[ $r == export* ]] && out=(-o "$TMP/out")
		# shellcheck disable=SC2086
		read -r c rss _ pass first < <(best "$BIN/post" -v --threads 1 -i "$t" "${POST_ARGS[@]}" \
			$r "${out[@]}")
		awk -v r="$r" -v s="$steps" -v c="$c" -v f="$frate" -v m="$rss" -v p="$pass" \
			-v a="$first" 'BEGIN {
			v = s / c / 1e6; w = p > 0 ? s / p / 1e6 : 0
			printf "  %-28s %8.3f %8.3f %10.1f %7.2f %8.3f %10.1f %7.2f %6d MB\n", r, a, c, v,
				v / f, p, w, w / f, m / 1024 }'
	done
	# the same work on one thread and on every CPU, wall-clock, one after the other
	for r in "info --read" "counts" "profile"; do
		# shellcheck disable=SC2086
		read -r _ _ w1 < <(cpu "$BIN/post" --threads 1 -i "$t" "${POST_ARGS[@]}" $r)
		# shellcheck disable=SC2086
		read -r _ _ wn < <(cpu "$BIN/post" -i "$t" "${POST_ARGS[@]}" $r)
		awk -v r="$r" -v a="$w1" -v b="$wn" -v n="$(nproc)" 'BEGIN {
			printf "  %-28s wall %.2f s on 1 thread, %.2f s on %d: speed-up %.2f\n", r, a, b, n, a / b }'
	done
}

# engine_split TRACE: how arc's pass took the steps: one at a time (code seen
# the first time, or not repeating), in runs, in calls taken whole (replays)
engine_split() {
	"$BIN/post" -v -i "$1" "${POST_ARGS[@]}" arc --no-pager 2>&1 >/dev/null | awk '
		/call flow: [0-9]+ steps,/ { for (i = 1; i <= NF; i++) if ($i == "flow:") n = $(i + 1) }
		/steps one at a time/ { for (i = 1; i <= NF; i++) {
			if ($(i + 1) == "steps" && $(i + 2) == "one") one = $i
			if ($i == "whole") { w = $(i + 1); sub(/^\(/, "", w) } } }
		END { if (n > 0) printf "%.1f%% of steps one at a time (first sight), %.1f%% in calls " \
			"taken whole, %.1f%% in runs", 100 * one / n, 100 * w / n, 100 * (n - one - w) / n }'
}

if [ -n "$GIVEN" ]; then
	table "$GIVEN" "$(post_streams "$GIVEN")"
	echo "  engine: $(engine_split "$GIVEN")"
	exit 0
fi

"$BIN/pitrace" record -o "$TMP/rec" -- "$PROG" >/dev/null 2>&1 || { echo "bench: cannot record $PROG"; exit 1; }
entry=$(nm "$PROG" | awk '$3 == "iteration" { print $1 }' | sed 's/^0*//')
load=$(readelf -lW "$PROG" | awk '$1 == "LOAD" && / R E / { print $3 ":" $6 ":" $2; exit }')
IFS=: read -r vaddr memsz off <<<"$load"
"$BIN/post" -i "$TMP/rec" steps --no-pager >"$TMP/rec.steps"
for n in $SIZES; do
	t=$TMP/t$n
	make_trace "$n" "$t" || { echo "bench: cannot make a $n-step trace"; exit 1; }
	table "$t" "4 threads"
	rm -rf "$t"
done

# zlib's minigzip built from Debian's source at gcc -O2, the tarball checked
# and kept in BENCH_CACHE: prints its path
ZLIB=zlib_1.2.13.dfsg.orig.tar.bz2
ZLIB_SHA256=71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1
minigzip() {
	local cache=${BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pitrace/bench}
	mkdir -p "$cache" || return 1
	if ! echo "$ZLIB_SHA256  $cache/$ZLIB" | sha256sum -c --status 2>/dev/null; then
		curl -sfo "$cache/$ZLIB.part" "http://deb.debian.org/debian/pool/main/z/zlib/$ZLIB" &&
			echo "$ZLIB_SHA256  $cache/$ZLIB.part" | sha256sum -c --status &&
			mv "$cache/$ZLIB.part" "$cache/$ZLIB" || return 1
	fi
	tar xjf "$cache/$ZLIB" -C "$TMP" && cd "$TMP"/zlib-1.2.13* &&
		gcc -O2 -g -I. -o "$TMP/minigzip" test/minigzip.c adler32.c compress.c crc32.c \
			deflate.c gzclose.c gzlib.c gzread.c gzwrite.c infback.c inffast.c inflate.c \
			inftrees.c trees.c uncompr.c zutil.c && cd - >/dev/null && echo "$TMP/minigzip"
}

# real NAME WHAT [record options] -- CMD...: record and bench one real program
real() {
	local name=$1 what=$2 t=$TMP/real-$1
	shift 2
	if ! "$BIN/pitrace" record -o "$t" "$@" >/dev/null 2>"$TMP/rec.err"; then
		echo "bench: $name: cannot record: $(tail -n 1 "$TMP/rec.err")"
		return
	fi
	table "$t" "$what"
	echo "  engine: $(engine_split "$t")"
	rm -rf "$t"
}

if [ "${BENCH_POST_REAL:-1}" != 0 ]; then
	# each about a million steps or less: a minute or so to record
	text=$TMP/text
	head -c 6000 /usr/share/common-licenses/GPL-3 >"$text"
	seq 400 | awk '{ print ($1 * 7919) % 401, "line", $1 }' >"$TMP/lines"
	real gzip "Debian's gzip -c of 6,000 bytes of text" -- /usr/bin/gzip -c "$text"
	real sort "Debian's sort -n of 400 lines" -- /usr/bin/sort -n "$TMP/lines"
	real sqlite3 "Debian's sqlite3: 200 rows inserted, grouped, ordered" -- /usr/bin/sqlite3 :memory: \
		"create table t(a, b); with recursive c(x) as (select 1 union all select x + 1 from c
		 where x < 200) insert into t select x % 17, x * x from c;
		 select a, count(*), sum(b) from t group by a order by 3 desc;"
	real python3 "Debian's python3 -c, --on PyEval_EvalCode: json of 300 numbers" \
		--on PyEval_EvalCode -- /usr/bin/python3 -c 'import json; json.dumps(list(range(300)))'
	if mg=$(minigzip); then
		real minigzip "zlib 1.2.13's minigzip -c (gcc -O2, Debian's source), the same text" -- \
			"$mg" -c "$text"
	else
		echo "bench: zlib's source from Debian's archive is not at hand: minigzip left out"
	fi
fi

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
