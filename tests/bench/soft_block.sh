#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Figures (not pass/fail): steps per second of `pitrace record` single
# steps and --soft-block on three programs, alternating the two, ROUNDS
# times each (default 3), and the ratio of their best rates.
# tests/bench/soft_block.sh [ROUNDS]
set -u
cd "$(dirname "$0")/../.." || exit 1
BIN=${PT_BIN:-bin}
PROGS=${PT_PROGS:-build/progs}
ROUNDS=${1:-3}
TMP=$(mktemp -d /tmp/pitrace-soft-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
head -c 20000 README.md >"$TMP/small"

# rate OPTS...: the steps/s pitrace's last line gives, as a number
rate() {
	local line
	line=$("$BIN/pitrace" record -o "$TMP/t" "$@" 2>&1 >/dev/null | grep '^pitrace: .* steps/s')
	rm -rf "$TMP/t" "$TMP/t.old"
	echo "$line" | sed -E 's/.*\(([0-9.]+)(k?) steps\/s\).*/\1 \2/' |
		awk '{ print $2 == "k" ? $1 * 1000 : $1 }'
}

printf '%-22s %12s %12s %7s\n' program step/s soft/s ratio
for prog in "$PROGS/pt_loops" /bin/true "gzip -c $TMP/small"; do
	best_step=0 best_soft=0
	for _ in $(seq "$ROUNDS"); do
		# shellcheck disable=SC2086
		s=$(rate -- $prog)
		# shellcheck disable=SC2086
		b=$(rate --soft-block -- $prog)
		best_step=$(awk -v a="$best_step" -v b="$s" 'BEGIN { print (b > a ? b : a) }')
		best_soft=$(awk -v a="$best_soft" -v b="$b" 'BEGIN { print (b > a ? b : a) }')
	done
	name=${prog%% *}
	printf '%-22s %12.0f %12.0f %6.2fx\n' "${name##*/}" "$best_step" "$best_soft" \
		"$(awk -v a="$best_step" -v b="$best_soft" 'BEGIN { print b / a }')"
done
