# SPDX-License-Identifier: GPL-2.0
# Driver sessions from the command line: no driver, no session, start/status/
# stop, stop after the traced program exited, EBUSY naming the holder, a
# non-root user refused, on/off.  Guest side of tests/vm/run.sh.
P=$PT_PROGS
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
# symcount DIR SYMBOL [post counts options]: steps in SYMBOL, 0 when absent
symcount() {
	d=$1 s=$2
	shift 2
	post -i "$d" counts --by symbol "$@" | awk -v s="$s" '!/^#/ && $NF == s { n = $1 } END { print n + 0 }'
}

# Without the driver: a one-line error naming the cause, exit 1.  (status
# loads nothing; start would modprobe the module installed here: k05.)
rmmod pitrace
err=$(pitrace status 2>&1)
rc=$?
if [ $rc = 1 ] && [ "$err" = "pitrace: error: /dev/pitrace not found: the pitrace module of kernel $(uname -r) is not loaded (as root: modprobe pitrace)" ]; then
	pass session-no-driver
else
	fail session-no-driver "exit $rc, said: $err"
fi
insmod "$PT_KO" || { fail session-insmod "cannot load $PT_KO again"; exit 1; }

out=$(pitrace status 2>&1)
[ "$out" = "no session" ] && pass sess-status-no-session || fail sess-status-no-session "said: $out"

# A running program selected by pid: it blocks in read() until we write.
mkfifo go
exec 3<>go
"$P/sess_loop" 100000 <go &
pid=$!
sleep 1
out=$(pitrace start -p "$pid" -o bypid 2>&1)
rc=$?
echo "$out"
if [ $rc != 0 ]; then
	fail session-start "exit $rc: $out"
	exit 1
fi
collector=$(echo "$out" | sed -n 's/.*collector pid \([0-9]*\).*/\1/p')
pass session-start

st=$(pitrace status 2>&1)
echo "$st"
if echo "$st" | grep -q "^session: held by pid $collector (pitrace)" &&
	echo "$st" | grep -q "^selection: pid $pid\$" &&
	echo "$st" | grep -q '^tracing: on' && echo "$st" | grep -q '^cpu 0: '; then
	pass sess-status-session
else
	fail sess-status-session "unexpected status output"
fi

# A second claim fails and names the holder.
err=$(pitrace start -p "$pid" -o second 2>&1)
rc=$?
if [ $rc = 1 ] && echo "$err" | grep -q "busy: a session is held by pid $collector (pitrace)"; then
	pass session-ebusy
else
	fail session-ebusy "exit $rc, said: $err"
fi
[ -e second ] && fail session-ebusy-nodir "the refused start created its trace directory"

# Not root: refused with a clear message.
err=$(su nobody -s /bin/sh -c "pitrace status" 2>&1)
rc=$?
if [ $rc = 1 ] && echo "$err" | grep -q 'cannot open /dev/pitrace: Permission denied (driver sessions need root)'; then
	pass session-non-root
else
	fail session-non-root "exit $rc, said: $err"
fi

# Not even through a node opened up by chmod: the driver itself wants
# CAP_SYS_ADMIN at open (a udev rule or chmod gives no one else a way in).
chmod 666 /dev/pitrace
err=$(su nobody -s /bin/sh -c "pitrace status" 2>&1)
rc=$?
chmod 600 /dev/pitrace
if [ $rc = 1 ] && echo "$err" | grep -q 'cannot open /dev/pitrace: Operation not permitted (driver sessions need root)'; then
	pass session-non-root-chmod
else
	fail session-non-root-chmod "exit $rc, said: $err"
fi

# Let the program run to its end, then stop: the trace is complete.
printf x >&3
wait "$pid"
out=$(pitrace stop 2>&1)
rc=$?
echo "$out"
if [ $rc = 0 ] && echo "$out" | grep -q '^pitrace: session stopped: [0-9]* steps, 0 lost, .*trace in .*/bypid$'; then
	pass session-stop-after-exit
else
	fail session-stop-after-exit "exit $rc: $out"
fi
n=$(symcount bypid work)
[ "$n" = 200002 ] && pass session-by-pid-count || fail session-by-pid-count "work: $n steps, expected 200002"
post -i bypid info | grep -q 'driver' && pass session-trace-backend ||
	fail session-trace-backend "post info does not say driver"
ended=$(post -i bypid info | sed -n 's/^ended: *//p')
[ "$ended" = stopped ] && pass session-trace-ended ||
	fail session-trace-ended "post info says ended: '$ended', expected stopped"
# It holds kernel addresses (kallsyms, the KASLR slide): its owner's only.
modes="$(stat -c %a bypid) $(stat -c %a bypid/kallsyms) $(stat -c %a bypid/header)"
if [ "$modes" = "700 600 600" ] && ! su nobody -s /bin/sh -c "cat bypid/kallsyms" >/dev/null 2>&1 &&
	! su nobody -s /bin/sh -c "post -i $PWD/bypid info" >/dev/null 2>&1; then
	pass session-trace-private
else
	fail session-trace-private "modes (dir, kallsyms, header) $modes, or nobody read it"
fi
out=$(pitrace status 2>&1)
[ "$out" = "no session" ] && pass sess-status-after-stop || fail sess-status-after-stop "said: $out"
err=$(pitrace stop 2>&1)
rc=$?
[ $rc = 1 ] && echo "$err" | grep -q 'no session to stop' && pass sess-stop-no-session ||
	fail sess-stop-no-session "exit $rc, said: $err"

# on/off from the command line: only the middle run is recorded.
pitrace start --off --comm sess_loop -o onoff >/dev/null || fail sess-onoff-cli "start failed"
"$P/sess_loop" 1000 </dev/null
pitrace on || fail sess-onoff-cli "pitrace on failed"
"$P/sess_loop" 3000 </dev/null
pitrace off || fail sess-onoff-cli "pitrace off failed"
"$P/sess_loop" 5000 </dev/null
pitrace stop
n=$(symcount onoff work)
[ "$n" = 6002 ] && pass sess-onoff-cli || fail sess-onoff-cli "work: $n steps, expected 6002 (one run of 3000)"
err=$(pitrace on 2>&1)
rc=$?
[ $rc = 1 ] && echo "$err" | grep -q 'no session' && pass sess-on-no-session ||
	fail sess-on-no-session "exit $rc, said: $err"

# A killed collector: the driver ends the session, stop says what happened,
# the partial trace still opens, and a new session can start.
out=$(pitrace start --comm sess_loop -o killed 2>&1)
collector=$(echo "$out" | sed -n 's/.*collector pid \([0-9]*\).*/\1/p')
"$P/sess_loop" 1000 </dev/null
sleep 2	# the collector writes what it has every second
kill -9 "$collector"
sleep 1
err=$(pitrace stop 2>&1)
rc=$?
if [ $rc = 1 ] && echo "$err" | grep -q "collector (pid $collector) is gone; the trace in .*/killed is incomplete"; then
	pass sess-stop-killed-collector
else
	fail sess-stop-killed-collector "exit $rc, said: $err"
fi
out=$(pitrace status 2>&1)
[ "$out" = "no session" ] && pass sess-status-after-kill || fail sess-status-after-kill "said: $out"
post -i killed info | grep -q recording && pass sess-killed-trace-readable ||
	fail sess-killed-trace-readable "post info cannot read the partial trace"
pitrace start --comm sess_loop -o again >/dev/null && pitrace stop >/dev/null &&
	pass sess-start-after-kill || fail sess-start-after-kill "no new session after a killed collector"
exit 0
