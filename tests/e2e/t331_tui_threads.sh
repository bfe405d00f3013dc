#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# e2e: serial (see tests/run-e2e.sh)
# post tui's thread picker filters every view, with the numbers the
# reports give for that thread or process: on tests/progs/arc_threads.c
# (two threads) the functions view of each thread and of the process equal
# post profile --tid/--pid row for row, the callers and callees of its
# functions equal post arc --tid, its whole tree (e opens all) equals post
# tree --tid, its flow has post flow --tid's lines; on
# tests/progs/arc_tailcall.c (-O2 tail calls, whose calls arcs credit to
# the function that jumped) one thread's arcs equal all threads'.  The
# annotate view shows post annotate's rows in its three layouts: of all
# threads, of a thread's process (--pid: addresses are counted per
# process), and of each process of tests/progs/pt_forkspin.c's fork.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"
. "$ROOT/tests/e2e/viewer-lib.sh"

# profile_rows ARGS: post profile's rows
profile_rows() {
	"$POST" -i trace profile --wide "$@" | grep -v '^#'
}

# annot_layouts WHAT POST-ARGS...: the annotate view open (its first layout)
# shows post annotate ARGS's rows, and in each layout Tab gives in turn
annot_layouts() {
	local what=$1
	shift
	expect_same_file "annotate of $what" <(annot_rows "$@") <(tui_annot_rows)
	tui_keys Tab
	tui_wait '  instruction \(Tab\)$'
	expect_same_file "annotate --asm of $what" <(annot_rows --asm "$@") <(tui_annot_rows)
	tui_keys Tab
	tui_wait '  source \(Tab\)$'
	expect_same_file "annotate --source of $what" <(annot_rows --source "$@" 2>/dev/null) \
		<(tui_annot_rows)
	tui_keys Tab
	tui_wait '  source / instruction \(Tab\)$'
}

# tree_tuples: "depth calls base cum pct name" of rows (the viewer's or post tree's)
tree_tuples() {
	awk '$1 ~ /^[0-9]+$/ && $5 ~ /%$/ { n = $NF; print $1, $2, $3, $4, $5, n }'
}

arc_record trace "$PROGS/arc_threads"
threads=$("$POST" -i trace tree | sed -n 's/^# thread \([0-9]*\) (pid \([0-9]*\))$/\1 \2/p')
expect_eq "threads" 2 "$(wc -l <<<"$threads")"
pid=$(head -1 <<<"$threads" | cut -d' ' -f2)

tui_start 200 400 -i trace tui
tui_wait ' functions  1/'
expect_same_file "all threads" <(profile_rows) <(tui_rows)

# the picker lists all threads, the process and its two threads
tui_keys p
tui_wait '^Processes and threads'
expect_eq "picker rows" 4 "$(tui_rows | wc -l)"
tui_rows | grep -qE "process $pid .*2 threads" || { tui_screen; fail "no process row"; }
tui_keys q

while read -r tid p; do
	tui_pick "thread $tid"
	tui_keys Home
	tui_wait ' functions  1/'
	expect_same_file "functions of thread $tid" <(profile_rows --tid "$tid") <(tui_rows)
	for fn in main work thread_main start_thread; do
		"$POST" -i trace profile --tid "$tid" --wide | grep -q " $fn \[" || continue
		tui_callers_of "$fn"
		expect_same_file "arcs of $fn in thread $tid" <(arc_tuples "$fn" -i trace --tid "$tid") \
			<(tui_arc_tuples)
		tui_keys q
	done
	tui_keys t
	tui_wait '^Call tree per thread'
	expect_eq "trees shown for one thread" 1 "$(tui_rows | grep -c '^ *[0-9]* *100.00%  [-+] thread ')"
	tui_keys Home e
	tui_wait ' tree  1/'
	expect_same_file "tree of thread $tid" <("$POST" -i trace tree --tid "$tid" | tree_tuples) \
		<(tui_rows | tree_tuples)
	tui_keys q f
	tui_wait '^Call flow: '
	# (post flow --tid also lists the other threads' exits, and switches to
	# and from them: not counted)
	expect_eq "flow lines of thread $tid" "$("$POST" -i trace flow --tid "$tid" |
		awk -v t="$tid" '!/^#/ && $2 == t && !/= thread [0-9]+ \(pid/' | wc -l)" \
		"$(tui_screen | sed -n 's/^Call flow: \([0-9]*\) lines.*/\1/p')"
	tui_keys q
done <<<"$threads"

tui_pick "process $pid"
tui_keys Home
tui_wait ' functions  1/'
expect_same_file "functions of process $pid" <(profile_rows --pid "$pid") <(tui_rows)
tui_pick "all threads"
tui_keys Home
tui_wait ' functions  1/'
expect_same_file "all threads again" <(profile_rows) <(tui_rows)

# annotate shows post annotate's rows: of every thread, and with a thread
# picked of its process (addresses are counted per process), saying so
tui_annotate_of work
annot_layouts "work" -i trace --symbol work
tui_keys q q
tid=$(head -1 <<<"$threads" | cut -d' ' -f1)
tui_pick "thread $tid"
tui_annotate_of work
tui_screen | grep -q '^(the counts are of the thread.s process' || { tui_screen; fail "no per-process note"; }
annot_layouts "work in thread $tid" -i trace --symbol work --pid "$pid"
tui_keys q q
tui_keys q
expect_eq "exit status" 0 "$(tui_exited)"

# two processes (tests/progs/pt_forkspin.c: a fork, then the parent waits
# and prints, the child exits): with one picked, annotate counts its steps
rm -rf trace
"$PITRACE" record --follow-fork -o trace -- "$PROGS/pt_forkspin" >record.out 2>&1 ||
	fail "record --follow-fork: $(tail -1 record.out)"
pids=$("$POST" -i trace tree | sed -n 's/^# thread [0-9]* (pid \([0-9]*\))$/\1/p' | sort -u)
expect_eq "processes" 2 "$(wc -l <<<"$pids")"
cmp -s <(annot_rows -i trace --symbol main --pid "$(sed -n 1p <<<"$pids")") \
	<(annot_rows -i trace --symbol main --pid "$(sed -n 2p <<<"$pids")") &&
	fail "main's counts are the same in both processes: nothing to tell them apart"
tui_start 200 400 -i trace tui
tui_wait ' functions  1/'
tui_annotate_of main
annot_layouts "main of both processes" -i trace --symbol main
tui_keys q q
for p in $pids; do
	tui_pick "process $p"
	tui_annotate_of main
	annot_layouts "main in process $p" -i trace --symbol main --pid "$p"
	tui_keys q q
done
tui_keys q
expect_eq "exit status" 0 "$(tui_exited)"

# tail calls: one thread's arcs (added up from its tree and its calls) are arcs' own
objdump -d "$PROGS/arc_tailcall" | grep -q 'jmp.*<leaf>' || skip "the compiler made no tail call to leaf"
rm -rf trace
arc_record trace "$PROGS/arc_tailcall"
tid=$("$POST" -i trace tree | sed -n 's/^# thread \([0-9]*\) .*/\1/p')
tui_start 200 400 -i trace tui
tui_wait ' functions  1/'
for fn in main middle leaf ping pong; do
	tui_callers_of "$fn"
	tui_arc_tuples >"$TMP/all.$fn"
	expect_same_file "arcs of $fn" <(arc_tuples "$fn" -i trace) "$TMP/all.$fn"
	tui_keys q
done
tui_pick "thread $tid"
expect_same_file "functions of the thread" <(profile_rows) <(tui_rows)
for fn in main middle leaf ping pong; do
	tui_callers_of "$fn"
	expect_same_file "arcs of $fn in the thread" "$TMP/all.$fn" <(tui_arc_tuples)
	tui_keys q
done
tui_keys Q
expect_eq "exit status" 0 "$(tui_exited)"
echo "PASS"
