# SPDX-License-Identifier: GPL-2.0
# The driver under stress, through pitrace's own sessions (each bounded in
# count; the harness then checks the module unloads and the kernel log is
# clean): 200 threads in one process; a fork/exec storm under --tree and
# under --all; 1,000 regions mapped and unmapped; a program clearing the
# trap flag with popf; vfork and PTRACE_TRACEME programs; a signal storm;
# the collector killed with SIGKILL at random moments of a busy session
# (rmmod refused before, the traced program unharmed after); a CPU taken
# offline and back during a session; the trace directory on a tmpfs that
# fills up.  Every traced program must behave as untraced (output, exit
# status) and every trace must read.
P=$PT_PROGS
S=$P/vm_stress
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
# session NAME START-ARGS...: start a session into NAME, or fail NAME
session() {
	_n=$1
	shift
	pitrace start "$@" -o "$_n" >"$_n.start" 2>&1 || { fail "$_n" "start: $(cat "$_n.start")"; return 1; }
}
# finish NAME: stop the session; its trace must read
finish() {
	if ! pitrace stop >"$1.stop" 2>&1; then
		fail "$1-stop" "$(cat "$1.stop")"
	elif ! post -i "$1" info >"$1.info" 2>&1; then
		fail "$1-read" "$(head -2 "$1.info")"
	else
		return 0
	fi
	return 1
}
# threads_in NAME: threads the trace saw
threads_in() { post -i "$1" counts --by thread | grep -c '^ *[0-9]'; }

# 200 threads in one traced process.
session threads --comm vm_stress && {
	out=$("$S" threads 200)
	rc=$?
	if finish threads; then
		n=$(threads_in threads)
		[ $rc = 0 ] && [ "$out" = "threads 200 sum 399800000" ] && [ "$n" -ge 201 ] &&
			pass stress-200-threads || fail stress-200-threads "exit $rc, said '$out', $n threads traced"
	fi
}

# A fork/exec storm: 300 processes under --tree, 100 under --all.
mkfifo go
sh -c "read x <go; exec $S forks 300" >tree.out &
root=$!
session tree --tree "$root" && {
	echo x >go
	wait $root
	rc=$?
	if finish tree; then
		procs=$(post -i tree counts --by process | grep -c '^ *[0-9]')
		[ $rc = 0 ] && [ "$(cat tree.out)" = "forks 300" ] && [ "$procs" -ge 301 ] &&
			pass stress-fork-storm-tree || fail stress-fork-storm-tree "exit $rc, said '$(cat tree.out)', $procs processes traced"
	fi
}
session all --all && {
	out=$("$S" forks 100)
	rc=$?
	if finish all; then
		[ $rc = 0 ] && [ "$out" = "forks 100" ] && pass stress-fork-storm-all ||
			fail stress-fork-storm-all "exit $rc, said '$out'"
	fi
}

# Mappings, popf, vfork, a tracer of its own: as untraced.
for t in "maps 1000:maps 1000" "popf 1000:popf 1000 tf 0"; do
	args=${t%%:*} want=${t#*:} name=stress-$(echo "${t%% *}")
	want_native=$("$S" $args)
	session "${t%% *}" --comm vm_stress && {
		out=$("$S" $args)
		rc=$?
		finish "${t%% *}" &&
			{ [ $rc = 0 ] && [ "$out" = "$want_native" ] && pass "$name" ||
				fail "$name" "exit $rc, said '$out' (untraced: '$want_native', expected '$want')"; }
	}
done
for prog in pt_fid_vfork pt_fid_ptrace; do
	[ -x "$P/$prog" ] || { echo "SKIP stress-$prog: not built"; continue; }
	native=$("$P/$prog" 2>&1)
	native_rc=$?
	session "$prog" --comm "$prog" && {
		out=$("$P/$prog" 2>&1)
		rc=$?
		finish "$prog" && { [ $rc = $native_rc ] && [ "$out" = "$native" ] && pass "stress-$prog" ||
			fail "stress-$prog" "exit $rc (untraced $native_rc), said '$out' (untraced '$native')"; }
	}
done

# A signal storm at a traced program.
session signals --comm vm_stress && {
	"$S" signals 4 >sig.out &
	pid=$!
	until grep -q ready sig.out 2>/dev/null; do sleep 0.1; done
	while kill -USR1 $pid 2>/dev/null; do :; done
	wait $pid
	rc=$?
	if finish signals; then
		got=$(sed -n 's/^signals //p' sig.out)
		[ $rc = 0 ] && [ "${got:-0}" -gt 0 ] && pass stress-signal-storm ||
			fail stress-signal-storm "exit $rc, said '$(cat sig.out)'"
	fi
}

# The collector killed at random moments of a busy session; rmmod refused
# while tasks are stepped; the program runs on untraced and unharmed.
i=0
while [ $i -lt 3 ]; do
	i=$((i + 1))
	"$P/vm_spin" &
	spin=$!
	out=$(pitrace start -p $spin -o killed$i 2>&1)
	coll=$(echo "$out" | sed -n 's/.*collector pid \([0-9]*\).*/\1/p')
	[ -n "$coll" ] || { fail stress-kill-collector-$i "start: $out"; kill $spin; continue; }
	until pitrace status | grep -q '^steps: [1-9]'; do sleep 0.1; done
	rmmod pitrace 2>/dev/null && { fail stress-rmmod-busy-$i "rmmod succeeded during a session"; insmod "$PT_KO"; }
	usleep $(( (${RANDOM:-5} % 10) * 100000 )) 2>/dev/null || sleep 1
	kill -9 "$coll"
	until [ "$(pitrace status 2>&1)" = "no session" ]; do sleep 0.1; done
	sleep 1
	if kill -0 $spin 2>/dev/null; then
		kill $spin
		wait $spin
		rc=$?
		post -i killed$i info >/dev/null 2>&1 && [ $rc = 143 ] && pass stress-kill-collector-$i ||
			fail stress-kill-collector-$i "vm_spin's status $rc (143: our SIGTERM; 133: SIGTRAP), or the trace does not read"
	else
		wait $spin
		fail stress-kill-collector-$i "vm_spin died with the collector (status $?)"
	fi
done

# A CPU offline and back during a session.
if [ -w /sys/devices/system/cpu/cpu1/online ]; then
	session hotplug --comm vm_stress && {
		"$S" signals 3 >hot.out &
		pid=$!
		until grep -q ready hot.out 2>/dev/null; do sleep 0.1; done
		kill -USR1 $pid
		echo 0 >/sys/devices/system/cpu/cpu1/online
		sleep 1
		echo 1 >/sys/devices/system/cpu/cpu1/online
		wait $pid
		rc=$?
		finish hotplug && { [ $rc = 0 ] && pass stress-cpu-hotplug ||
			fail stress-cpu-hotplug "exit $rc, said '$(cat hot.out)'"; }
	}
else
	echo "SKIP stress-cpu-hotplug: cpu1 cannot go offline here"
fi

# The trace on a tmpfs that fills: the session stops cleanly, the trace
# reads up to there, and the loss is counted.
# (room for the kallsyms and modules snapshots the trace starts with, and
# 1 MiB of steps: a few seconds of vm_spin)
mkdir -p full
kib=$(( ($(wc -c </proc/kallsyms) + $(wc -c </proc/modules)) / 1024 + 1024 ))
if mount -t tmpfs -o size=${kib}k none full; then
	"$P/vm_spin" &
	spin=$!
	out=$(pitrace start -p $spin -o full/t 2>&1) || echo "INFO enospc: start said: $out"
	w=0	# a bound, not a timing: 600 looks at the status
	until [ "$(pitrace status 2>&1)" = "no session" ] || pitrace status 2>&1 | grep -q '^lost: [1-9]' ||
		[ $w -ge 600 ]; do
		w=$((w + 1))
		sleep 0.2
	done
	stop=$(pitrace stop 2>&1)
	kill $spin
	wait $spin
	rc=$?
	info=$(post -i full/t info 2>&1)
	lost=$(echo "$info" | sed -n 's/^lost: *//p' | tr -d ,)
	echo "$stop" | head -3
	if [ $rc = 143 ] && echo "$info" | grep -q '^steps:' && [ "${lost:-0}" -gt 0 ]; then
		pass stress-enospc
	else
		fail stress-enospc "vm_spin's status $rc; stop said '$stop'; info: $(echo "$info" | grep -E 'error|state|steps|lost' | tr '\n' ' ')"
		echo "INFO enospc: $(ls -la full full/* 2>&1 | tr '\n' ' ')"
		echo "INFO enospc: the collector's log: $(tr '\n' ' ' </run/pitrace/collector.log 2>/dev/null)"
	fi
	umount full
else
	echo "SKIP stress-enospc: cannot mount a tmpfs"
fi
exit 0
