# SPDX-License-Identifier: GPL-2.0
# The driver under stress, part 2, the session's side: the collector
# killed with SIGKILL at random moments of a busy session (rmmod refused
# while tasks are stepped; the traced program runs on unharmed), and a CPU
# taken offline and back during a session.
. /pt/cases/stress.inc
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

exit 0
