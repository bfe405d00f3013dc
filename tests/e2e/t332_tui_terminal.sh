#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# e2e: serial (see tests/run-e2e.sh)
# post tui gives the terminal back as it found it (settings, main screen,
# cursor) when it quits, on Ctrl-C (exit 130) and on SIGTERM (143); without
# a terminal, with bad options or a bad trace it says why in one line
# before taking the screen; the filters and the window apply to its views
# as to the reports (annotate shows a callee the filter did not select, as
# its tree does); annotate finds a moved source with --source-dir and says
# when it cannot; a bounded flow index says what it left out;
# POST_TUI_KEYLOG logs each key's time.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"
. "$ROOT/tests/e2e/viewer-lib.sh"

arc_record trace "$PROGS/arc_basic"

# errors before the screen: one line, exit 1 (runtime) or 2 (usage)
run_expect_status "no terminal" 1 "$POST" -i trace tui </dev/null >out 2>err
grep -q '^post: error: tui: needs a terminal' err || fail "no terminal: $(cat err)"
expect_eq "no terminal: lines" 1 "$(wc -l <err)"
run_expect_status "bad option" 2 "$POST" -i trace tui --flow-lines x </dev/null 2>err
expect_eq "bad option: lines" 1 "$(wc -l <err)"
tui_start 80 24 -i nosuch tui
expect_eq "missing trace" 1 "$(tui_exited)"
tui_restored
tui_screen | grep -q '^post: error: .*nosuch' || { tui_screen; fail "no error line for a missing trace"; }

# Ctrl-C
tui_start 80 24 -i trace tui
tui_wait ' functions  1/4 '
tui_keys C-c
expect_eq "exit status on Ctrl-C" 130 "$(tui_exited)"
tui_restored

# SIGTERM, in another view
tui_start 80 24 -i trace tui
tui_wait ' functions  1/4 '
tui_keys t
tui_wait '^Call tree'
kill -TERM "$(cat "$TMP/tui.pid")"
expect_eq "exit status on SIGTERM" 143 "$(tui_exited)"
tui_restored
tui_screen | grep -q 'pitrace  trace' && fail "the viewer's screen is still shown"

# filters and the window: the views' numbers are the reports'
tui_start 80 24 -i trace tui --from 2 --to 12
tui_wait ' functions  1/'
expect_same_file "window" <("$POST" -i trace profile --from 2 --to 12 | grep -v '^#') <(tui_rows)
tui_screen | grep -q '^ pitrace .* window 2-12' || fail "the title does not show the window"
tui_keys Q
tui_exited >/dev/null
tui_start 80 24 -i trace tui --symbol f
tui_wait ' functions  1/1 '
expect_same_file "symbol filter" <("$POST" -i trace profile --symbol f | grep -v '^#') <(tui_rows)
tui_keys t
tui_wait '^Call tree per thread, the selected functions'
tui_keys Home e
tui_wait ' tree  1/3 '
expect_same_file "f's subtrees" <("$POST" -i trace tree --symbol f | awk '!/^#/ { print $1, $NF }') \
	<(tui_rows | awk '$5 ~ /%$/ { print $1, $NF }')
tui_keys End a
tui_wait '^Annotate g \['
expect_same_file "annotate of g, under f" <(annot_rows -i trace --symbol g) <(tui_annot_rows)
tui_keys Q
tui_exited >/dev/null

# a source moved since the build: annotate says so, --source-dir finds it
mkdir -p build/src elsewhere
cat >build/src/spin.c <<'EOF'
static int __attribute__((noinline)) spin(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i;
	return s;
}

void _start(void)
{
	asm volatile("syscall" : : "a"(60), "D"(spin(50) == 0));
	for (;;)
		;
}
EOF
gcc -g -O0 -nostdlib -static -fno-pie -no-pie -o spin "$TMP/build/src/spin.c" || fail "gcc spin.c"
arc_record spin.data ./spin
mv build/src/spin.c elsewhere/
tui_start 200 50 -i spin.data tui
tui_wait ' functions  1/'
tui_annotate_of spin
tui_screen | grep -qxF "(source: $TMP/build/src/spin.c: No such file or directory (lines by number only))" ||
	{ tui_screen; fail "no note of the missing source"; }
tui_keys Q
tui_exited >/dev/null
tui_start 200 50 -i spin.data tui --source-dir "$TMP/elsewhere"
tui_wait ' functions  1/'
tui_annotate_of spin
expect_same_file "annotate with --source-dir" \
	<(annot_rows -i spin.data --symbol spin --source-dir "$TMP/elsewhere") <(tui_annot_rows)
tui_screen | grep -q '^ .* s += i;$' || { tui_screen; fail "--source-dir: no source text"; }
tui_keys Q
tui_exited >/dev/null

# a flow index of 5 lines says what it leaves out
tui_start 100 24 -i trace tui --flow-lines 5
tui_wait ' functions  1/4 '
tui_keys f
tui_wait 'index holds the first 5 lines, 10 more are not shown'
expect_eq "flow rows" 5 "$(tui_rows | wc -l)"
tui_keys Q
tui_exited >/dev/null

# the key log: one line per key, its time in microseconds
POST_TUI_KEYLOG=$TMP/keys.log tui_start 80 24 -i trace tui
tui_wait ' functions  1/4 '
tui_keys Down
tui_wait ' functions  2/4 '
tui_keys q
tui_exited >/dev/null
grep -qE '^KEY_DOWN [0-9]+ functions$' "$TMP/keys.log" || { cat "$TMP/keys.log"; fail "no key in the log"; }
echo "PASS"
