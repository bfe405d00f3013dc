# SPDX-License-Identifier: GPL-2.0
# Helpers of the viewer's tests (t33*_tui_*.sh; the file is not named t*.sh,
# which run-e2e.sh runs): post tui runs in a tmux server of the test's own
# (its socket in $TMP), driven with send-keys and read with capture-pane, as
# a user's terminal would show it.  Source after lib.sh (and arc-lib.sh for
# recording).  Every wait polls the screen until
# what it waits for is there, with a generous bound: never a fixed sleep.

command -v tmux >/dev/null || skip "tmux is not installed (make deps)"
TUI_N=0
TUI_SOCK=$TMP/tmux.0.sock	# a server of its own for each tui_start
TUI_WAIT=${PT_TUI_WAIT:-120}	# seconds a screen may take to appear, at most
tmux_() { tmux -S "$TUI_SOCK" "$@"; }
trap 'tmux_ kill-server 2>/dev/null; rm -rf "$TMP"' EXIT

# tui_start COLS LINES ARGS...: `post ARGS` in a COLSxLINES terminal, from a
# shell that notes the terminal's settings before and after it, and its exit
# status ($TMP/tui.rc); "== exited ==" shows when it is over.  Its pid is in
# $TMP/tui.pid.
tui_start() {
	local cols=$1 lines=$2
	shift 2
	rm -f "$TMP/tui.rc" "$TMP/tui.pid" "$TMP/stty.before" "$TMP/stty.after"
	printf '%q ' "$POST" "$@" >"$TMP/tui.cmd"
	cat >"$TMP/tui.sh" <<-EOF
		trap : INT
		stty -g >"$TMP/stty.before"
		sh -c 'echo \$\$ >"$TMP/tui.pid"; exec "\$@"' sh $(cat "$TMP/tui.cmd")
		echo \$? >"$TMP/tui.rc"
		stty -g >"$TMP/stty.after"
		echo "== exited =="
		exec sleep 100000
	EOF
	tmux_ kill-server 2>/dev/null
	TUI_N=$((TUI_N + 1))
	TUI_SOCK=$TMP/tmux.$TUI_N.sock
	tmux_ -f /dev/null new-session -d -s tui -x "$cols" -y "$lines" \
		"bash --norc --noprofile $TMP/tui.sh" || fail "tmux cannot start"
	tmux_ set-option -t tui status off >/dev/null
}

# tui_screen: the screen as text, trailing blank lines dropped.
tui_screen() {
	tmux_ capture-pane -p -t tui | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

# tui_wait REGEX: until the screen shows REGEX (grep -E) and stays the same
# for one more look a moment later (drawn whole: on a loaded host tmux may
# show a screen half written); fails with the screen after TUI_WAIT s.
tui_wait() {
	local deadline=$((SECONDS + TUI_WAIT)) a b
	while [ $SECONDS -lt $deadline ]; do
		a=$(tui_screen)
		if grep -qE -- "$1" <<<"$a"; then
			sleep 0.1
			b=$(tui_screen)
			[ "$a" = "$b" ] && return 0
		fi
		sleep 0.05
	done
	echo "--- the screen:"
	tui_screen
	fail "waited ${TUI_WAIT}s for '$1'"
}

# tui_wait_at ROW REGEX: until row ROW (from 1) of the screen shows REGEX (after a
# resize: the screen as it was drawn before may show REGEX elsewhere).
tui_wait_at() {
	local deadline=$((SECONDS + TUI_WAIT))
	while [ $SECONDS -lt $deadline ]; do
		tmux_ capture-pane -p -t tui | sed -n "$1p" | grep -qE -- "$2" && { tui_wait "$2"; return 0; }
		sleep 0.05
	done
	echo "--- the screen:"
	tui_screen
	fail "waited ${TUI_WAIT}s for '$2' on row $1"
}

# tui_keys KEY...: type keys (tmux key names: Enter, Escape, Up, NPage, ...).
tui_keys() {
	tmux_ send-keys -t tui "$@"
}

# tui_type TEXT: type TEXT literally.
tui_type() {
	tmux_ send-keys -t tui -l -- "$1"
}

# tui_norm DIR: the screen with DIR's ids as ID0, ID1... (arc_norm), and
# the source tree's paths relative to it.
tui_norm() {
	tui_screen | arc_norm "$1" | sed "s|$ROOT/||g"
}

# tui_golden NAME DIR: the screen (ids of DIR normalised) equals expected/NAME.
tui_golden() {
	tui_norm "$2" >"$TMP/$1"
	if [ -n "${PT_UPDATE_GOLDEN:-}" ]; then
		cp "$TMP/$1" "$EXPECTED/$1"
	fi
	expect_same_file "screen" "$EXPECTED/$1" "$TMP/$1"
}

# tui_resize COLS LINES
tui_resize() {
	tmux_ resize-window -t tui -x "$1" -y "$2"
}

# tui_exited: wait for post to end; its exit status on stdout.
tui_exited() {
	tui_wait '== exited ==' >&2
	cat "$TMP/tui.rc"
}

# tui_restored: the terminal's settings are what they were before post ran,
# and it left the alternate screen, with the cursor shown.
tui_restored() {
	cmp -s "$TMP/stty.before" "$TMP/stty.after" ||
		fail "terminal settings not restored: $(cat "$TMP/stty.before") -> $(cat "$TMP/stty.after")"
	expect_eq "alternate screen after exit" 0 "$(tmux_ display -p -t tui '#{alternate_on}')"
	expect_eq "cursor shown after exit" 1 "$(tmux_ display -p -t tui '#{cursor_flag}')"
}

# tui_rows: the rows of the view shown (between the column heading and the status line).
tui_rows() {
	tui_screen | sed -n '4,$p' | sed '$d' | sed '/^$/d'
}

# tui_pick WHAT: in the picker (p), Enter on the row matching WHAT ("all
# threads", "process PID", "thread TID"); back in the view it came from.
tui_pick() {
	local n
	tui_keys p
	tui_wait '^Processes and threads'
	n=$(tui_rows | grep -nE -- "[ *] +$1( |$)" | head -1 | cut -d: -f1)
	[ -n "$n" ] || { tui_screen; fail "no '$1' in the picker"; }
	tui_keys Home
	for ((; n > 1; n--)); do tui_keys Down; done
	tui_keys Enter
	tui_wait "^ pitrace .* $1"
}

# tui_callers_of NAME: from the functions view, the callers view of NAME
# (searched, the exact name); leaves it open.
tui_callers_of() {
	local try
	tui_keys F Home
	tui_wait '^Functions by'
	tui_keys /
	tui_type "$1"
	tui_keys Enter
	for try in 1 2 3 4 5 6 7 8 9 10; do
		tui_keys Enter
		tui_wait '^Callers .* of '
		tui_screen | grep -qF "and callees (>) of $1 [" && return 0
		tui_keys q n
		tui_wait '^Functions by'
	done
	fail "no function $1"
}

# tui_annotate_of NAME: from the functions view, the annotate view of NAME
# (a on its row in its callers view); leaves it open.
tui_annotate_of() {
	tui_callers_of "$1"
	tui_keys a
	tui_wait "^Annotate $1 \\["
}

# tui_annot_rows: the annotate view's rows, its notes ("(...)") left out.
tui_annot_rows() {
	tui_rows | grep -v '^('
}

# annot_rows POST-ARGS...: post annotate's rows, as the viewer shows them
# (its "# lines in FILE:" without the '#', the other comments left out).
annot_rows() {
	"$POST" annotate "$@" | awk '/^# lines in / { print substr($0, 3); next } !/^#/'
}

# tui_arc_tuples: the callers view's rows as "calls base cum DIR name".
tui_arc_tuples() {
	tui_rows | awk '{ n = $6; for (i = 7; i <= NF; i++) n = n " " $i
		if ($5 == "=") sub(/ \[[^]]*\]$/, "", n); print $1, $2, $3, $5, n }'
}

# arc_tuples NAME POST-ARGS...: the same rows of NAME's entry in post arc.
arc_tuples() {
	local name=$1
	shift
	"$POST" arc --wide "$@" | awk -v f="$name" '
		function flush() { if (hit) printf "%s", blk; blk = ""; hit = 0 }
		/^#/ { flush(); next }
		$4 == "<" || $4 == ">" { n = $5; for (i = 6; i <= NF; i++) n = n " " $i
			blk = blk $1 " " $2 " " $3 " " $4 " " n "\n"; next }
		{ n = $6; for (i = 7; i < NF; i++) n = n " " $i
		  blk = blk $1 " " $2 " " $4 " = " n "\n"; if (n == f) hit = 1 }
		END { flush() }'
}
