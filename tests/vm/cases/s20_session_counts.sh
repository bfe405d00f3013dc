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

pitrace record --backend ptrace -o ref -- "$P/sess_loop" 100000 </dev/null >/dev/null 2>&1 ||
	{ fail ptrace-reference "pitrace record --backend ptrace failed"; exit 1; }
n=$(symcount ref work)
[ "$n" = 200002 ] || fail ptrace-reference "work: $n steps, expected 200002"

# By command name: selected at its execve, so from its first instruction.
pitrace start --comm sess_loop -o bycomm >/dev/null || fail by-comm "start failed"
"$P/sess_loop" 100000 </dev/null
pitrace stop
same by-comm-equals-ptrace ref bycomm

# pitrace record picks the driver when it is loaded.
pitrace record -o rec -- "$P/sess_loop" 100000 </dev/null || fail record-driver "record failed"
post -i rec info | grep -q driver || fail record-driver "the trace's backend is not driver"
same record-driver-equals-ptrace ref rec
pitrace record --backend driver -o rec2 -- "$P/sess_loop" 100000 </dev/null ||
	fail record-backend-driver "record --backend driver failed"
same record-backend-driver-equals-ptrace ref rec2

# By pid, while it waits in read(): the work function counts the same.
mkfifo go
exec 3<>go
"$P/sess_loop" 100000 <go &
pid=$!
sleep 1
pitrace start -p "$pid" -o bypid >/dev/null || fail by-pid "start failed"
echo x >&3
wait "$pid"
pitrace stop
n=$(symcount bypid work)
r=$(symcount ref work)
[ "$n" = "$r" ] && pass by-pid-equals-ptrace || fail by-pid-equals-ptrace "work: $n steps, ptrace $r"

# Two processes at once, different work sizes.
mkfifo go1 go2
exec 4<>go1 5<>go2
"$P/sess_loop" 1000 <go1 &
p1=$!
"$P/sess_loop" 3000 <go2 &
p2=$!
sleep 1
pitrace start -p "$p1,$p2" -o two >/dev/null || fail two-processes "start failed"
echo x >&4
echo x >&5
wait "$p1" "$p2"
pitrace stop
n1=$(symcount two work --pid "$p1")
n2=$(symcount two work --pid "$p2")
if [ "$n1" = 2002 ] && [ "$n2" = 6002 ]; then
	pass two-processes
else
	fail two-processes "work: pid $p1 $n1 steps (expected 2002), pid $p2 $n2 (expected 6002)"
fi
exit 0
