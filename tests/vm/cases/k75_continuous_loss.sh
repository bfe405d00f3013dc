# SPDX-License-Identifier: GPL-2.0
# Continuous policy with a collector too slow to keep up (two 4 KiB
# sub-buffers per CPU, drained every 300 ms, a process stepping for 2 s):
# steps are lost, recording resumes after each drain behind a LOST record,
# and everything is accounted exactly -- the LOST records add up to what the
# driver marked, and recorded + lost = steps taken.
. /pt/cases/lib.inc
$PT_PROGS/vm_spin &
spin=$!
ptdrv follow -D 300 -P continuous -b 8192 -s 4096 -k pid -p $spin >out 2>&1 &
coll=$!
wait_steps 0 >/dev/null
sleep 2
kill -9 $spin
wait $spin 2>/dev/null
sleep 0.5
kill $coll
wait $coll
recorded=$(field "$(grep "^tid $spin " out)" steps)
lost=$(total out lost)
[ "$(total out marker_sum)" -gt 0 ] && echo "PASS continuous-lost-marked" ||
	echo "FAIL continuous-lost-marked: no LOST record in the streams (lost $lost)"
check_eq continuous-decodes "undecodable streams" 0 "$(total out bad)"
check_eq continuous-markers "LOST records vs marked losses" "$(total out lost_marked)" \
	"$(total out marker_sum)"
check_eq continuous-accounted "recorded + lost" "$(final out steps)" $((recorded + lost))
echo "INFO continuous: $recorded steps recorded, $lost lost ($(total out marker_sum) marked in the stream)"
