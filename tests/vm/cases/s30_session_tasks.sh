# SPDX-License-Identifier: GPL-2.0
# Driver traces of task events: a multithreaded program, fork and exec, a
# signal handler; counts known by construction (tests/progs/sess_*.c).  (The
# ptrace comparisons are s20's: ptrace needs minutes for these dynamically
# linked programs under TCG.)
P=$PT_PROGS
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
# symcount DIR SYMBOL [options]: steps in SYMBOL, 0 when absent
symcount() {
	d=$1 s=$2
	shift 2
	post -i "$d" counts --by symbol "$@" | awk -v s="$s" '!/^#/ && $NF == s { n = $1 } END { print n + 0 }'
}
# expect CHECK DIR SYMBOL STEPS [options]
expect() {
	c=$1 d=$2 s=$3 want=$4
	shift 4
	n=$(symcount "$d" "$s" "$@")
	if [ "$n" = "$want" ]; then
		pass "$c"
	else
		post -i "$d" counts --by process
		post -i "$d" counts --by symbol "$@" | head -n 12
		post -i "$d" dump --tasks
		fail "$c" "$s: $n steps, expected $want"
	fi
}

# Threads: 4 workers, spin(50000) each = 100002 steps each.
pitrace record -o thr -- "$P/sess_threads" || fail sess-threads "record failed"
expect sess-threads-total thr spin 400008
ok=0 bad=""
# Rows: count, percent, pid, then the thread as "TID (COMM)".
for tid in $(post -i thr counts --by thread | awk '!/^#/ && $NF != "total" { print $4 }'); do
	n=$(symcount thr spin --tid "$tid")
	case $n in
	100002) ok=$((ok + 1)) ;;
	0) ;;
	*) bad="$bad tid $tid: $n" ;;
	esac
done
[ $ok = 4 ] && [ -z "$bad" ] && pass sess-threads-each || fail sess-threads-each "$ok threads with 100002 spin steps;$bad"

# Fork and exec: the parent spins 6002 steps, the child execs sess_loop 1000 (work 2002).
pitrace record -o fe -- "$P/sess_forkexec" "$P/sess_loop" 1000 || fail sess-fork-exec "record failed"
expect sess-fork-parent fe parent_spin 6002
expect sess-exec-child fe work 2002
post -i fe counts --by process | grep -q sess_loop && pass sess-exec-comm ||
	fail sess-exec-comm "no process named sess_loop in the trace"

# A signal handler runs 4002 steps, then main 6002.
pitrace record -o sig -- "$P/sess_signal" || fail sess-signal "record failed"
expect sess-signal-handler sig handler_spin 4002
expect sess-signal-after sig after_spin 6002

# pitrace exits with the command's status (sess_forkexec without arguments: 2).
pitrace record -o status -- "$P/sess_forkexec" >/dev/null 2>&1
rc=$?
[ $rc = 2 ] && pass sess-record-exit-status || fail sess-record-exit-status "exit $rc, expected the command's 2"

exit 0
