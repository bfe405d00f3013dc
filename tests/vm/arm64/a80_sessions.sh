# SPDX-License-Identifier: GPL-2.0
# arm64 driver sessions count what the ptrace backend counts: static arm64
# programs traced by command name and by pid with pitrace start/stop, and
# by pitrace record; post's symbol report is the same for each, and the
# comm session's steps equal the record's.
. /pt/cases/lib.inc
P=$PT_PROGS
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
counts() {	# counts DIR: the symbol report without its '#' lines
	post -i "$1" counts --by symbol | grep -v '^#'
}
same() {	# same NAME REF TRACE: the two traces' symbol reports are identical
	counts "$2" >"$2.counts" 2>&1
	counts "$3" >"$3.counts" 2>&1
	if [ -s "$2.counts" ] && diff "$2.counts" "$3.counts" >"$1.diff"; then
		pass "$1"
	else
		cat "$1.diff"
		fail "$1" "post counts of $3 differ from $2's"
	fi
}
for prog in vm_loop vm_signal; do
	pitrace record --backend ptrace -o ref.$prog -- "$P/$prog" >/dev/null 2>&1 ||
		{ fail a-sess-ref-$prog "pitrace record --backend ptrace failed"; continue; }
	pitrace record --backend driver -o rec.$prog -- "$P/$prog" >/dev/null 2>&1 ||
		fail a-sess-record-$prog "pitrace record --backend driver failed"
	same a-sess-record-$prog ref.$prog rec.$prog

	pitrace start --comm $prog -o bycomm.$prog >/dev/null || fail a-sess-comm-$prog "start failed"
	"$P/$prog"
	pitrace stop >/dev/null
	same a-sess-comm-$prog ref.$prog bycomm.$prog
	# The driver's session by comm and its record agree, whatever the reference does.
	check_eq a-sess-comm-$prog-steps "steps of the comm session (record: see expected)" \
		"$(post -i rec.$prog info | sed -n 's/^steps: *//p')" \
		"$(post -i bycomm.$prog info | sed -n 's/^steps: *//p')"
done
# By pid: a process started stopped, selected, then continued.
sh -c 'kill -STOP $$; exec '"$P"'/vm_loop' &
pid=$!
until grep -q '^State:.*T' /proc/$pid/status 2>/dev/null; do sleep 0.05; done
pitrace start -p $pid -o bypid >/dev/null || fail a-sess-pid "start failed"
kill -CONT $pid
wait $pid
pitrace stop >/dev/null
n=$(counts bypid | awk '$NF == "_start" { n = $1 } END { print n + 0 }')
[ "$n" = 30004 ] && pass a-sess-pid || fail a-sess-pid "_start: $n steps, expected 30004"
