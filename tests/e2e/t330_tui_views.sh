#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# e2e: serial (see tests/run-e2e.sh)
# post tui on tests/progs/arc_basic.S, whose counts are known by
# construction (see its header), under tmux at 80x24: every view's screen
# equals its golden file (functions, sorted by Cum, callers and callees,
# drilling from f to its caller main and back, the tree per thread and
# merged (at 100x24), annotate, flow with Enter from a call to its return,
# help); a search; a resize to 100x30, to 60x20 (too small: it says so) and
# back; q quits with status 0 and the terminal as it was.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"
. "$ROOT/tests/e2e/viewer-lib.sh"

arc_record trace "$PROGS/arc_basic"
tui_start 80 24 -i trace tui
tui_wait ' functions  1/4 '
tui_golden t330_functions trace

# sort keys: Cum, calls, name, back to Base
tui_keys s
tui_wait 'Functions by Cum'
tui_golden t330_functions_cum trace
tui_keys s
tui_wait 'Functions by calls'
tui_keys s
tui_wait 'Functions by name'
expect_eq "by name" "_start f g main" "$(tui_screen | awk '/\[arc_basic\]$/ { printf "%s%s", s, $6; s = " " }')"
tui_keys s
tui_wait 'Functions by Base'

# drill: f's callers and callees, Enter on its caller main, back with q
tui_keys Down Enter
tui_wait 'Callers .* of f '
tui_golden t330_callers_f trace
tui_keys Up Enter
tui_wait 'Callers .* of main '
tui_golden t330_callers_main trace
tui_keys q
tui_wait 'Callers .* of f '
tui_keys q
tui_wait 'Functions by Base'

# search: / g, then n goes to the next match (and around)
tui_keys /
tui_wait '^search:'
tui_type g
tui_keys Enter
tui_wait ' functions  1/4 '
tui_keys Home / m a i n Enter
tui_wait ' functions  4/4 '
tui_keys n
tui_wait ' functions  4/4  search wrapped'
tui_keys / n o - s u c h Enter
tui_wait "'no-such' not found"

# the tree per thread, merged, closing and opening a row (at 100 columns:
# a thread's row, "thread TID (pid PID, arc_basic)", is cut at 80 where the
# ids' widths decide)
tui_resize 100 24
tui_keys t
tui_wait 'Call tree per thread'
tui_golden t330_tree trace
tui_keys Down Down Left
tui_wait '\+ main'
tui_keys Enter
tui_wait '\- main'
tui_keys m
tui_wait 'Call tree of the threads merged'
tui_golden t330_tree_merged trace
tui_keys q
tui_resize 80 24
tui_wait ' functions  '

# annotate g: its source lines and instructions
tui_keys Home a
tui_wait 'Annotate g '
tui_golden t330_annotate trace
tui_keys Tab Tab
tui_wait 'source \(Tab'
tui_golden t330_annotate_source trace
tui_keys q

# the flow, Enter from f's call to its return
tui_keys f
tui_wait 'Call flow: 15 lines'
tui_keys Down Down Enter
tui_wait ' flow  6/15 '
tui_golden t330_flow trace
tui_keys Enter
tui_wait ' flow  3/15 '
tui_keys q

# help
tui_keys '?'
tui_wait 'Keys of the functions view'
tui_screen | grep -q '^s  *sort by Base, Cum, calls, name' || fail "help lacks the sort key"
tui_keys Escape
tui_wait 'Functions by Base'

# resizes: larger, too small, back
tui_resize 100 30
tui_wait_at 30 '^ functions  1/4 '
tui_golden t330_functions_100x30 trace
expect_eq "status line on the last row" 30 "$(tui_screen | grep -n '^ functions ' | cut -d: -f1)"
tui_resize 60 20
tui_wait 'needs a terminal of at least 80x24'
tui_screen | grep -q '(this one is 60x20)' || fail "the too-small screen does not say its size"
tui_resize 80 24
tui_wait ' functions  1/4 '
tui_golden t330_functions trace

tui_keys q
expect_eq "exit status of q" 0 "$(tui_exited)"
tui_restored
echo "PASS"
