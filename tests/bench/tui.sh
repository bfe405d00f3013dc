#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Figures of post tui on a long trace (not pass/fail): the time to load it
# into the viewer, its peak memory, and how long each key of a tour of the
# views takes (handling and drawing, from POST_TUI_KEYLOG), driven under
# tmux.  tests/bench/tui.sh [TRACE]; without TRACE it records
# build/progs/tui_bench 3 (about 10M steps: minutes with ptrace).
set -u
cd "$(dirname "$0")/../.." || exit 1
BIN=${PT_BIN:-bin}
PROGS=${PT_PROGS:-build/progs}
TMP=$(mktemp -d /tmp/pitrace-tui-bench.XXXXXX)
SOCK=$TMP/tmux.sock
tm() { tmux -S "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$TMP"' EXIT
command -v tmux >/dev/null || { echo "tui bench: tmux is not installed"; exit 1; }

trace=${1:-}
if [ -z "$trace" ]; then
	[ -x "$PROGS/tui_bench" ] || { echo "tui bench: $PROGS/tui_bench not built (make progs)"; exit 1; }
	echo "tui bench: recording $PROGS/tui_bench 3 (about 10M steps)..."
	"$BIN/pitrace" record -o "$TMP/trace" -- "$PROGS/tui_bench" 3 >/dev/null || exit 1
	trace=$TMP/trace
fi
steps=$("$BIN/post" -i "$trace" info | awk '$1 == "steps:" { print $2 }')
screen() { tm capture-pane -p -t b; }
# wait_for REGEX: poll the screen (10 minutes at most)
wait_for() {
	local end=$((SECONDS + 600))
	while [ $SECONDS -lt $end ]; do
		screen | grep -qE -- "$1" && return 0
		sleep 0.02
	done
	echo "tui bench: no '$1' on the screen:"; screen; exit 1
}
# (searches for a name that is nowhere are the worst case: every node, every line)
# key KEY...: send keys one by one, each when the last one's time is logged
key() {
	local n k
	for k in "$@"; do
		n=$(wc -l <"$TMP/keys.log")
		tm send-keys -t b "$k"
		while [ "$(wc -l <"$TMP/keys.log")" -le "$n" ]; do sleep 0.01; done
	done
}
# ask KEY TEXT: a key that prompts (/ g w), then TEXT and Enter: one key in the log
ask() {
	local n
	n=$(wc -l <"$TMP/keys.log")
	tm send-keys -t b "$1"
	tm send-keys -t b -l -- "$2"
	tm send-keys -t b Enter
	while [ "$(wc -l <"$TMP/keys.log")" -le "$n" ]; do sleep 0.01; done
}

t0=$(date +%s.%N)
tm -f /dev/null new-session -d -s b -x 160 -y 50 \
	"POST_TUI_KEYLOG=$TMP/keys.log $BIN/post -i $trace tui; sleep 100000"
wait_for ' functions  1/'
t1=$(date +%s.%N)
pid=$(pgrep -P "$(tm display -p -t b '#{pane_pid}')" -x post || tm display -p -t b '#{pane_pid}')
key s s s s End Home NPage NPage Enter q Down Enter Enter q q
ask / main
key Enter q a Tab Tab q
key t Home e End Home m
ask / deep
key n
ask / no-such-function
key q f End Home
ask g 5000000
ask / cmp_int
key n
ask / no-such-function
ask w 10000-20000
ask w ""
key q p End Enter F t q f q p Home Enter
rss=$(awk '/^VmHWM/ { printf "%.0f MB", $2 / 1024 }' "/proc/$pid/status" 2>/dev/null)
tm send-keys -t b q
load=$(awk '$1 == "load" { printf "%.2f", $2 / 1e6 }' "$TMP/keys.log")
echo "trace: $trace, $steps steps"
awk -v a="$t0" -v b="$t1" -v l="$load" 'BEGIN { printf "to the first screen: %.2f s (the pass: %s s)\n", b - a, l }'
echo "peak memory (VmHWM): ${rss:-?}"
echo "per key (microseconds, handling and drawing):"
awk '$1 != "load" && $1 !~ /^#/ { printf "  %-12s %-10s %9d\n", $1, $3, $2; n++; s += $2
	if ($2 > m) { m = $2; mk = $1 " in " $3 } }
	END { printf "keys: %d, mean %.0f us, max %d us (%s)\n", n, s / n, m, mk }' "$TMP/keys.log"
