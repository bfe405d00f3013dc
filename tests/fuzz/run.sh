#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the post fuzzer (tests/fuzz/README.md).
#
#   tests/fuzz/run.sh check SECONDS   every saved input (tests/fuzz/corpus, tests/fuzz/regress)
#                                     through every report, then SECONDS of fuzzing
#   tests/fuzz/run.sh fuzz SECONDS    SECONDS of fuzzing, the corpus kept in $O/fuzz/corpus
#
# Environment: O (build directory, default build), FUZZ_ARGS (more libFuzzer
# options).  A finding (crash, sanitizer report, hang, output past its bound,
# out of memory, stderr out of shape, a hostile trace file read) stops the
# run with exit status 1 and is left in
# $O/fuzz/artifacts/; tests/fuzz/README.md says how to keep it as a
# regression input.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
O=${O:-build}
case $O in /*) ;; *) O=$ROOT/$O ;; esac
FUZZ=$O/fuzz/fuzz_post
mode=${1:-}
secs=${2:-60}
[ -x "$FUZZ" ] || { echo "fuzz: $FUZZ not built (make $O/fuzz/fuzz_post)" >&2; exit 1; }
case $mode in check|fuzz) ;; *) echo "usage: $0 check|fuzz SECONDS" >&2; exit 2 ;; esac

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# A hang is one input past the timeout: 10 s when fuzzing, 30 s in make
# check, which must hold on a loaded host (an input's linear work is
# bounded, fuzz_post.c's MAX_DECODED: about 1 s of one report here).
timeout=10
[ "$mode" = check ] && timeout=30
limits=(-timeout=$timeout -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=65536)
mkdir -p "$O/fuzz/corpus" "$O/fuzz/artifacts"
# shellcheck disable=SC2206 # split on purpose: options
extra=(${FUZZ_ARGS:-})

if [ "$mode" = check ]; then
	mapfile -t saved < <(find "$ROOT/tests/fuzz/corpus" "$ROOT/tests/fuzz/regress" -type f \
		! -name '*.md' 2>/dev/null | sort)
	start=$(date +%s)
	if ! PITRACE_FUZZ_ALL=1 "$FUZZ" "${limits[@]}" -close_fd_mask=3 "${saved[@]}" \
		>"$O/fuzz/replay.log" 2>&1; then
		tail -n 40 "$O/fuzz/replay.log"
		echo "fuzz: FAIL: a saved input fails (log: $O/fuzz/replay.log)"
		exit 1
	fi
	echo "fuzz: ${#saved[@]} saved inputs through every report: no finding ($(( $(date +%s) - start )) s)"
fi

log=$O/fuzz/$mode.log
# make fuzz goes on after a finding (one child process at a time, -fork=1),
# so that a long run collects every finding; make check stops at the first.
keep=()
[ "$mode" = fuzz ] && keep=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
touch "$O/fuzz/.started"
# FUZZ_ARGS first: libFuzzer takes an option's first value
"$FUZZ" "${extra[@]}" "${limits[@]}" "${keep[@]}" -close_fd_mask=3 -print_final_stats=1 \
	-max_total_time="$secs" -artifact_prefix="$O/fuzz/artifacts/" \
	"$O/fuzz/corpus" "$ROOT/tests/fuzz/corpus" >"$log" 2>&1
rc=$?
# this run's findings (and not what running one again writes beside it)
mapfile -t findings < <(find "$O/fuzz/artifacts" -type f ! -name '*.again' -newer "$O/fuzz/.started")
found=${#findings[@]}
stats=$(grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb):' "$log" |
	sort -u | sed 's/^stat:://; s/: */ /' | tr '\n' ' ')
cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+(/[0-9]+[a-zA-Z]*)?( exec/s: [0-9]+)?' "$log" |
	tail -n 1)
if [ $rc -ne 0 ] || [ "$found" -gt 0 ]; then
	grep -E 'ERROR|SUMMARY|fuzz_post:|Test unit written|^    #[0-9]+ ' "$log" | head -n 40
	# Each finding run again alone, for a log read elsewhere (CI's): the
	# report and the trace's decoded size, and a small input itself.  A
	# hang that does not come again (the input done within the timeout,
	# alone) was the host's, not post's: said, kept, and not a failure.
	real=0
	for f in "${findings[@]}"; do
		echo "fuzz: $f ($(stat -c %s "$f") bytes), run again:"
		start=$(date +%s)
		PITRACE_FUZZ_SIZES=1 timeout $((2 * timeout)) "$FUZZ" -timeout="$timeout" -runs=1 \
			"$f" >"$f.again" 2>&1
		again=$?
		grep '^fuzz_post: ' "$f.again" | head -n 3
		took=$(($(date +%s) - start))
		if [ $again -eq 0 ] && [[ $(basename "$f") == timeout-* ]]; then
			# libFuzzer times the input only: the run's start-up and
			# the decoded sizes come on top, and may pass the limit
			if [ "$took" -le "$timeout" ]; then
				how="it took $took s alone, within the ${timeout} s limit"
			else
				how="alone it ran within the ${timeout} s limit (libFuzzer's timeout"
				how="$how did not fire; $took s with the start-up)"
			fi
			echo "fuzz: $how: not a hang of post (a loaded host?)"
		else
			real=$((real + 1))
		fi
		if [ "$(stat -c %s "$f")" -le 8192 ]; then
			echo "fuzz: the input (base64 -d >input; tests/fuzz/README.md):"
			base64 -w 0 "$f"
			echo
		fi
	done
	if [ "$real" -gt 0 ] || [ "$found" -eq 0 ]; then
		echo "fuzz: FAIL: $found finding(s) in ${secs} s at most (${stats}${cov}): see $log" \
			"and $O/fuzz/artifacts/"
		exit 1
	fi
	echo "fuzz: ${secs} s at most, no finding but a timeout that did not come again:" \
		"${stats}${cov}"
	exit 0
fi
echo "fuzz: ${secs} s, no finding: ${stats}${cov}"
