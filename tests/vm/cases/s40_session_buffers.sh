# SPDX-License-Identifier: GPL-2.0
# libpitrace brackets a region; a full buffer loses steps that are counted
# exactly and leaves a readable trace; count-only sessions.
P=$PT_PROGS
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
symcount() {
	d=$1 s=$2
	shift 2
	post -i "$d" counts --by symbol "$@" | awk -v s="$s" '!/^#/ && $NF == s { n = $1 } END { print n + 0 }'
}
total() {
	post -i "$1" counts | awk '!/^#/ && $NF == "total" { print $1 }'
}
# lost DIR: the steps lost according to the stop summary saved in DIR.summary
lost() { sed -n 's/.* steps, \([0-9]*\) lost.*/\1/p' "$1.summary"; }
steps() { sed -n 's/.*stopped: \([0-9]*\) steps.*/\1/p' "$1.summary"; }

# libpitrace: only region_spin(5000) between pitrace_on() and pitrace_off().
pitrace start --off --comm sess_onoff -o lib >/dev/null || fail sess-libpitrace "start failed"
"$P/sess_onoff" || fail sess-libpitrace "sess_onoff failed"
pitrace stop
n=$(symcount lib region_spin)
t=$(total lib)
[ "$n" = 10002 ] && pass sess-libpitrace-region || fail sess-libpitrace-region "region_spin: $n steps, expected 10002"
# The rest is the way out of pitrace_on() and into pitrace_off(): a few dozen steps.
[ -n "$t" ] && [ "$t" -ge 10002 ] && [ "$t" -lt 10500 ] && pass sess-libpitrace-only-region ||
	fail sess-libpitrace-only-region "$t steps recorded in all"

# Reference: sess_loop 1000000 with room to spare (as many digits as 1500000,
# so the same steps outside work()).
pitrace start --comm sess_loop --buffer-size 16 -o big >/dev/null || fail sess-overflow "start failed"
"$P/sess_loop" 1000000 </dev/null
pitrace stop >big.summary
ref=$(total big)
[ "$(lost big)" = 0 ] || fail sess-overflow-reference "lost steps with a 16 MiB buffer: $(cat big.summary)"

# 3000002 steps of work into 1 MiB read only at the end (the driver's
# records of this loop take about half a byte a step): some are lost.
pitrace start --comm sess_loop --buffer-size 1 --stop-when-full -o ovf >/dev/null || fail sess-overflow "start failed"
"$P/sess_loop" 1500000 </dev/null
pitrace stop >ovf.summary
cat ovf.summary
s=$(steps ovf) l=$(lost ovf)
t=$(total ovf)
if [ -z "$t" ]; then
	fail sess-overflow-readable "post counts cannot read the trace"
else
	pass sess-overflow-readable
fi
[ -n "$l" ] && [ "$l" -gt 0 ] && pass sess-overflow-lost || fail sess-overflow-lost "no steps lost: $(cat ovf.summary)"
want=$((ref + (1500000 - 1000000) * 2))
[ -n "$s" ] && [ -n "$l" ] && [ $((s + l)) = $want ] && pass sess-overflow-accounted ||
	fail sess-overflow-accounted "recorded $s + lost $l != $want executed"
[ "$t" = "$s" ] && pass sess-overflow-post-agrees || fail sess-overflow-post-agrees "post counts $t, collector $s"

# Wrap: a flight recorder keeps the newest steps: the end of the program.
pitrace start --comm sess_loop --buffer-size 1 --wrap -o wrap >/dev/null || fail sess-wrap "start failed"
"$P/sess_loop" 1500000 </dev/null
pitrace stop >wrap.summary
cat wrap.summary
t=$(total wrap)
w=$(symcount wrap work)
s=$(symcount wrap _start)
# _start's last 3 steps (mov, xor, syscall of exit) are the newest of all.
if [ -n "$t" ] && [ "$w" -gt 0 ] && [ "$w" -lt 3000002 ] && [ "$s" -ge 3 ]; then
	pass sess-wrap-newest
else
	fail sess-wrap-newest "total $t, work $w, _start $s"
fi

# Count mode: the driver's per-CPU counters, no records.
pitrace start --mode count --comm sess_loop -o cnt >/dev/null || fail sess-count-mode "start failed"
"$P/sess_loop" 1000000 </dev/null
pitrace stop >cnt.summary
cat cnt.summary
c=$(sed -n 's/.*stopped: \([0-9]*\) steps counted.*/\1/p' cnt.summary)
[ "$c" = "$ref" ] && pass sess-count-mode || fail sess-count-mode "counted $c, recorded $ref"
t=$(total cnt)
[ "$t" = "$ref" ] && pass sess-count-mode-post || fail sess-count-mode-post "post counts $t, recorded $ref"

# Throughput, for the log: the same steps recorded and counted.
for mode in step count; do
	pitrace start --comm sess_loop --mode $mode --buffer-size 16 -o "speed-$mode" >/dev/null
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$P/sess_loop" 1000000 </dev/null
	t1=$(cut -d' ' -f1 /proc/uptime)
	pitrace stop >/dev/null
	echo "speed: $mode mode: $ref steps in $(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }') s," \
		"$(echo "$t0 $t1 $ref" | awk '{ printf "%.0f", $3 / ($2 - $1) }') steps/s"
done
exit 0
