# SPDX-License-Identifier: GPL-2.0
# Driver traces count exactly what the ptrace backend counts: a static
# assembly program traced by command name, with `pitrace record`, and by pid;
# two processes selected at once, each counted right.
P=$PT_PROGS
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
# counts DIR [options]: the symbol report without its '#' lines
counts() {
	d=$1
	shift
	post -i "$d" counts --by symbol "$@" | grep -v '^#'
}
# symcount DIR SYMBOL [options]: steps in SYMBOL, 0 when absent
symcount() {
	d=$1 s=$2
	shift 2
	counts "$d" "$@" | awk -v s="$s" '$NF == s { n = $1 } END { print n + 0 }'
}
# same WHAT A B: the two traces' symbol reports are identical
same() {
	counts "$2" >"$2.counts" 2>&1
	counts "$3" >"$3.counts" 2>&1
	if [ -s "$2.counts" ] && diff "$2.counts" "$3.counts" >"$1.diff"; then
		pass "$1"
	else
		cat "$1.diff"
		fail "$1" "post counts of $3 differ from the ptrace backend's"
	fi
}

pitrace record --backend ptrace -o ref -- "$P/sess_loop" 20000 </dev/null >/dev/null 2>&1 ||
	{ fail sess-ptrace-reference "pitrace record --backend ptrace failed"; exit 1; }
n=$(symcount ref work)
[ "$n" = 40002 ] || fail sess-ptrace-reference "work: $n steps, expected 40002"

# By command name: selected at its execve, so from its first instruction.
pitrace start --comm sess_loop -o bycomm >/dev/null || fail sess-by-comm "start failed"
"$P/sess_loop" 20000 </dev/null
pitrace stop
same sess-by-comm-equals-ptrace ref bycomm

# pitrace record picks the driver when it is loaded.
pitrace record -o rec -- "$P/sess_loop" 20000 </dev/null || fail sess-record-driver "record failed"
post -i rec info | grep -q driver || fail sess-record-driver "the trace's backend is not driver"
same sess-record-driver-equals-ptrace ref rec
pitrace record --backend driver -o rec2 -- "$P/sess_loop" 20000 </dev/null ||
	fail sess-record-backend-driver "record --backend driver failed"
same sess-record-backend-driver-equals-ptrace ref rec2

# By pid, while it waits in read(): the work function counts the same.
mkfifo go
exec 3<>go
"$P/sess_loop" 20000 <go &
pid=$!
sleep 1
pitrace start -p "$pid" -o bypid >/dev/null || fail sess-by-pid "start failed"
printf x >&3
wait "$pid"
pitrace stop
n=$(symcount bypid work)
r=$(symcount ref work)
[ "$n" = "$r" ] && pass sess-by-pid-equals-ptrace || fail sess-by-pid-equals-ptrace "work: $n steps, ptrace $r"

# Two processes at once, different work sizes.
mkfifo go1 go2
exec 4<>go1 5<>go2
"$P/sess_loop" 1000 <go1 &
p1=$!
"$P/sess_loop" 3000 <go2 &
p2=$!
sleep 1
pitrace start -p "$p1,$p2" -o two >/dev/null || fail sess-two-processes "start failed"
printf x >&4
printf x >&5
wait "$p1" "$p2"
pitrace stop
n1=$(symcount two work --pid "$p1")
n2=$(symcount two work --pid "$p2")
if [ "$n1" = 2002 ] && [ "$n2" = 6002 ]; then
	pass sess-two-processes
else
	fail sess-two-processes "work: pid $p1 $n1 steps (expected 2002), pid $p2 $n2 (expected 6002)"
fi

# A pid range holding one process (sess_loop reads one byte: one fifo each).
mkfifo go3 go4
exec 6<>go3 7<>go4
"$P/sess_loop" 1500 <go3 &
p1=$!
sleep 1
pitrace start --pid-range "$p1-$p1" -o range >/dev/null || fail sess-pid-range "start failed"
printf x >&6
wait "$p1"
pitrace stop
n=$(symcount range work)
[ "$n" = 3002 ] && pass sess-pid-range || fail sess-pid-range "work: $n steps, expected 3002"

# A tree: a waiting shell, then the child it forks after we selected it.
sh -c "read x; \"$P/sess_loop\" 2500 </dev/null; true" <go4 &
p2=$!
sleep 1
pitrace start --tree "$p2" -o tree >/dev/null || fail sess-tree "start failed"
echo x >&7
wait "$p2"
pitrace stop
n=$(symcount tree work)
[ "$n" = 5002 ] && pass sess-tree-descendant || fail sess-tree-descendant "work: $n steps, expected 5002"
post -i tree counts --by process | grep -q " $p2 (" && pass sess-tree-root ||
	fail sess-tree-root "the tree's root $p2 has no steps"
exit 0
