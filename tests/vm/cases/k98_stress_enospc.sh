# SPDX-License-Identifier: GPL-2.0
# The driver under stress, part 3: the trace directory on a tmpfs that
# fills up, for a pitrace start session and for record --backend driver.
. /pt/cases/stress.inc
# The trace on a tmpfs that fills: the session ends by itself, pitrace stop
# says so (exit 1), the trace reads up to there without --force, and the
# steps that missed the disk are counted as lost.
# (room for the kallsyms and modules snapshots the trace starts with, and
# 1 MiB of steps: a few seconds of vm_spin)
mkdir -p full
kib=$(( ($(wc -c </proc/kallsyms) + $(wc -c </proc/modules)) / 1024 + 1024 ))
if mount -t tmpfs -o size=${kib}k none full; then
	"$P/vm_spin" &
	spin=$!
	out=$(pitrace start -p $spin -o full/t 2>&1) || echo "INFO enospc: start said: $out"
	w=0	# a bound, not a timing: 100 looks at the status
	until [ "$(pitrace status 2>&1 | head -n 1)" = "no session" ] || [ $w -ge 100 ]; do
		w=$((w + 1))
		sleep 0.5
	done
	stop=$(pitrace stop 2>&1)
	src=$?
	kill $spin
	wait $spin
	rc=$?
	info=$(post -i full/t info 2>&1)
	lost=$(echo "$info" | sed -n 's/^lost: *//p' | tr -d ,)
	echo "$stop" | head -3
	if [ $rc = 143 ] && [ $src = 1 ] && echo "$stop" | grep -q '^pitrace: session ended by itself: .*cut short: No space left on device' &&
		echo "$info" | grep -q '^steps:' && [ "${lost:-0}" -gt 0 ]; then
		pass stress-enospc
	else
		fail stress-enospc "vm_spin's status $rc; stop said '$stop'; info: $(echo "$info" | grep -E 'error|state|steps|lost' | tr '\n' ' ')"
		echo "INFO enospc: $(ls -la full full/* 2>&1 | tr '\n' ' ')"
		echo "INFO enospc: the collector's log: $(tr '\n' ' ' </run/pitrace/collector.log 2>/dev/null)"
	fi
	# record --backend driver: the same, and CMD runs on untraced to its own status
	rm -rf full/t full/t.*
	out=$(pitrace record --backend driver -o full/r -- "$S" threads 200 2>rec.err)
	rc=$?
	info=$(post -i full/r info 2>&1)
	lost=$(echo "$info" | sed -n 's/^lost: *//p' | tr -d ,)
	if [ $rc = 0 ] && [ "$out" = "threads 200 sum 399800000" ] && grep -q 'cut short: No space left on device' rec.err &&
		[ "${lost:-0}" -gt 0 ]; then
		pass stress-enospc-record
	else
		fail stress-enospc-record "exit $rc, said '$out'; stderr: $(tr '\n' ' ' <rec.err); info: $(echo "$info" | grep -E 'error|state|steps|lost' | tr '\n' ' ')"
	fi
	umount full
else
	echo "SKIP stress-enospc: cannot mount a tmpfs"
fi
exit 0
