#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmarks of the ptrace backend (figures, not pass/fail): steps/s of
# `pitrace record` with single steps (--single-step) and with software block
# steps (the default on x86_64), next to a bare PTRACE_SINGLESTEP loop
# (tests/bench/bare_step.c) over the same commands in the same run, pinned
# the same way, and the trace's bytes per step, plain and zstd-compressed.
# The commands: programs this project did not write (Debian's lua5.4 running
# a small script (time() fixed: tests/bench/fixed_time.c), pigz -p 1 compressing with zlib's deflate, gzip), then
# tests/progs/pt_loops.  Each command's three rates are taken in turn, best
# of BENCH_ROUNDS rounds (default 1); rates count pitrace's whole run,
# start-up and writing the trace included.
# Environment: PT_BIN (default bin), PT_PROGS (default build/progs),
# BENCH_ROUNDS (default 1), BENCH_DRIVER=0 leaves out the driver's figures
# (tests/vm/bench.sh, in QEMU).
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=${PT_BIN:-bin}
PROGS=${PT_PROGS:-build/progs}
ROUNDS=${BENCH_ROUNDS:-1}
TMP=$(mktemp -d /tmp/pitrace-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

${CC:-gcc} -O2 -Wall -o "$TMP/bare_step" tests/bench/bare_step.c || exit 1
# Lua seeds its string hashes from time(): a fixed time, the same run each time
${CC:-gcc} -O2 -Wall -shared -fPIC -o "$TMP/fixed_time.so" tests/bench/fixed_time.c || exit 1
for p in "$BIN/pitrace" "$BIN/post"; do
	[ -x "$p" ] || { echo "bench: $p not built (make all)"; exit 1; }
done
head -c 4000 README.md >"$TMP/in.txt"
cat >"$TMP/t.lua" <<'LUA'
local t = {}
for i = 1, 50 do t[#t + 1] = string.format("%d:%d", i, i * i) end
table.sort(t)
print(#t, t[1], t[#t])
LUA

now() { date +%s.%N; }
# bytes per step over every stream, from post info's stream lines
# ("steps.tN  STEPS steps  BYTES bytes  X bytes/step [zstd]")
bps() {
	"$BIN/post" -i "$1" info | awk '$1 ~ /^steps\./ && $3 == "steps" && $5 == "bytes" {
		s += $2; b += $4 } END { if (s) printf "%.2f", b / s }'
}
steps_of() { "$BIN/post" -i "$1" info | awk '$1 == "steps:" { print $2 }'; }
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > a ? b : a) }'; }
# rate DIR OPTS... -- CMD: steps/s of one recording into DIR (kept)
rate() {
	local dir=$1 t0 t1
	shift
	rm -rf "$dir" "$dir.old"
	t0=$(now)
	"$BIN/pitrace" record -o "$dir" "$@" >/dev/null 2>&1
	t1=$(now)
	awk -v s="$(steps_of "$dir")" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", s / (b - a) }'
}

printf "%-9s %9s %10s %10s %10s %9s %9s %10s %10s\n" program steps "bare st/s" "step st/s" \
	"soft st/s" soft/bare soft/step "bytes/step" "zstd b/st"
while IFS='|' read -r name cmd; do
	# shellcheck disable=SC2086
	command -v $name >/dev/null || [ -x "$PROGS/$name" ] ||
		{ echo "bench: $name missing (make deps, make progs)"; continue; }
	bare=0 step=0 soft=0
	for _ in $(seq "$ROUNDS"); do
		# shellcheck disable=SC2086
		read -r _ _ _ _ _ b < <("$TMP/bare_step" $cmd 2>/dev/null </dev/null | tail -1)
		bare=$(best "$bare" "${b:-0}")
		# shellcheck disable=SC2086
		step=$(best "$step" "$(rate "$TMP/step" --single-step -- $cmd)")
		# shellcheck disable=SC2086
		soft=$(best "$soft" "$(rate "$TMP/soft" -- $cmd)")
	done
	# shellcheck disable=SC2086
	"$BIN/pitrace" record -z -o "$TMP/z" -- $cmd >/dev/null 2>&1
	printf "%-9s %9s %10s %10s %10s %8.2fx %8.2fx %10s %10s\n" "$name" "$(steps_of "$TMP/soft")" \
		"$bare" "$step" "$soft" "$(awk -v a="$soft" -v b="$bare" 'BEGIN { print a / b }')" \
		"$(awk -v a="$soft" -v b="$step" 'BEGIN { print a / b }')" "$(bps "$TMP/soft")" "$(bps "$TMP/z")"
	[ "$(steps_of "$TMP/step")" = "$(steps_of "$TMP/soft")" ] ||
		echo "  ($name: $(steps_of "$TMP/step") steps single-stepped, $(steps_of "$TMP/soft") soft: not deterministic)"
	rm -rf "$TMP/step" "$TMP/soft" "$TMP/z"
done <<LIST
lua5.4|env LD_PRELOAD=$TMP/fixed_time.so lua5.4 $TMP/t.lua
pigz|pigz -p 1 -c $TMP/in.txt
gzip|gzip -c $TMP/in.txt
pt_loops|$PROGS/pt_loops
LIST
echo "soft: software block steps (the default); step: --single-step; bare: the step loop alone."
[ "${BENCH_DRIVER:-1}" = 0 ] ||
	PT_BIN=$BIN PT_PROGS=$PROGS tests/vm/bench.sh	# driver: recorded vs count-only steps/s in QEMU
