#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# On a terminal (tmux, as a user's), record's live step count never has the
# command's own output glued to it: step mode clears the line before the
# command writes to the terminal, and modes that run code unseen (block,
# --on) draw no live line while the command's output goes to the terminal.
# A second recording of the same command to the same DIR shows how far along
# it is: "step X of ~Y (Z%), R steps/s, ~T left", Y the first one's steps.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_talk
command -v tmux >/dev/null || skip "tmux is not installed (make deps)"
SOCK=$TMP/tmux.none.sock	# a server of its own for each run (a socket reused races its end)
trap 'tmux -S "$SOCK" kill-server 2>/dev/null; rm -rf "$TMP"' EXIT

# on_terminal NAME ARGS...: pitrace record ARGS in a 100x30 tmux pane; its
# screen, once "== exited ==" shows, in $TMP/NAME.screen
on_terminal() {
	local name=$1 deadline=$((SECONDS + 300))
	shift
	printf '%q ' "$PITRACE" record "$@" >"$TMP/$name.cmd"
	printf '%s\necho "== exited $? =="\nexec sleep 100000\n' "$(cat "$TMP/$name.cmd")" \
		>"$TMP/$name.sh"
	tmux -S "$SOCK" kill-server 2>/dev/null
	SOCK=$TMP/tmux.$name.sock
	tmux -S "$SOCK" -f /dev/null new-session -d -s rec -x 100 -y 30 \
		"cd $TMP && bash --norc --noprofile $TMP/$name.sh" || fail "tmux cannot start"
	while [ $SECONDS -lt $deadline ]; do
		tmux -S "$SOCK" capture-pane -p -t rec >"$TMP/$name.screen"
		grep -qE '^pitrace: [0-9]+ steps, [0-9.]+[kM]? steps/s$' "$TMP/$name.screen" &&
			touch "$TMP/$name.live"
		grep -qE '^pitrace: step [0-9]+ of ~[0-9]+ \([0-9]+%\), [0-9.]+[kM]? steps/s, ~[0-9hms]+ left$' \
			"$TMP/$name.screen" && cp "$TMP/$name.screen" "$TMP/$name.eta"
		grep -q '^== exited' "$TMP/$name.screen" && return 0
		sleep 0.1
	done
	cat "$TMP/$name.screen"
	fail "$name: pitrace record did not end"
}

# check NAME: the command's three lines each at the start of a line of
# their own, the summary after them, nothing glued to a live line
check() {
	local s=$TMP/$1.screen
	grep -q '^== exited 0 ==' "$s" || { cat "$s"; fail "$1: exit status"; }
	expect_eq "$1: the command's lines" "talk 1 talk 2 talk 3" \
		"$(grep -o 'talk [0-9]' "$s" | tr '\n' ' ' | sed 's/ $//')"
	expect_eq "$1: lines that are the command's alone" 3 "$(grep -cx 'talk [0-9]' "$s")"
	grep -q 'steps/stalk\|steps/s *talk' "$s" && { cat "$s"; fail "$1: output glued to the live line"; }
	grep -q '^pitrace: [0-9]* steps, 0 lost, 1 process, 1 thread in ' "$s" ||
		{ cat "$s"; fail "$1: no summary"; }
	return 0
}

on_terminal step -o step.data -- "$PROGS/pt_talk"
check step
expect_eq "step: state" complete "$(info_field step.data state)"
# the live line was seen on its own row between the talks: it was cleared,
# not left out (progress is looked at every 8192 steps: a host so loaded
# that none came in time tests nothing)
on_terminal block --mode block -o block.data -- "$PROGS/pt_talk"
check block
# where block stepping is not available, pitrace steps singly (and says so)
grep -q 'block stepping is not available' "$TMP/block.screen" ||
	[ ! -e "$TMP/block.live" ] || fail "block mode drew the live line over the command's output"

# the estimate: none the first time, the first run's steps the second time
# (about 160000 steps: a few seconds)
need_prog pt_limits
on_terminal eta1 -o eta.data -- "$PROGS/pt_limits" 60000
grep -q '^== exited 3 ==' "$TMP/eta1.screen" || { cat "$TMP/eta1.screen"; fail "eta1: exit status"; }
[ ! -e "$TMP/eta1.eta" ] || fail "eta1: an estimate without an earlier recording"
on_terminal eta2 -o eta.data -- "$PROGS/pt_limits" 60000
grep -q '^== exited 3 ==' "$TMP/eta2.screen" || { cat "$TMP/eta2.screen"; fail "eta2: exit status"; }
[ -e "$TMP/eta2.eta" ] || [ ! -e "$TMP/eta2.live" ] ||
	fail "eta2: a live line without the estimate from eta.data"
steps=$(info_field eta.data.old steps)
[ ! -e "$TMP/eta2.eta" ] || grep -q "^pitrace: step [0-9]* of ~$steps (" "$TMP/eta2.eta" ||
	{ cat "$TMP/eta2.eta"; fail "eta2: the estimate is not eta1's $steps steps"; }
[ -e "$TMP/eta2.eta" ] || echo "note: no live line in eta2 (a fast host): the estimate is untested"
[ -e "$TMP/step.live" ] ||
	skip "the live line never showed in step mode (a loaded host): nothing was there to collide"
echo "PASS"
