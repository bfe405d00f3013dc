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
pitrace start --off --comm sess_onoff -o lib >/dev/null || fail libpitrace "start failed"
"$P/sess_onoff" || fail libpitrace "sess_onoff failed"
pitrace stop
n=$(symcount lib region_spin)
t=$(total lib)
[ "$n" = 10002 ] && pass libpitrace-region || fail libpitrace-region "region_spin: $n steps, expected 10002"
# The rest is the way out of pitrace_on() and into pitrace_off(): a few dozen steps.
[ -n "$t" ] && [ "$t" -ge 10002 ] && [ "$t" -lt 10500 ] && pass libpitrace-only-region ||
	fail libpitrace-only-region "$t steps recorded in all"

# Reference: sess_loop 1000000 with room to spare (the same digits as 2000000).
pitrace start --comm sess_loop --buffer-size 16 -o big >/dev/null || fail overflow "start failed"
"$P/sess_loop" 1000000 </dev/null
pitrace stop >big.summary
ref=$(total big)
[ "$(lost big)" = 0 ] || fail overflow-reference "lost steps with a 16 MiB buffer: $(cat big.summary)"

# 4000002 steps of work through 1 MiB that nobody drains: most are lost.
pitrace start --comm sess_loop --buffer-size 1 --stop-when-full -o ovf >/dev/null || fail overflow "start failed"
"$P/sess_loop" 2000000 </dev/null
pitrace stop >ovf.summary
cat ovf.summary
s=$(steps ovf) l=$(lost ovf)
t=$(total ovf)
if [ -z "$t" ]; then
	fail overflow-readable "post counts cannot read the trace"
else
	pass overflow-readable
fi
[ -n "$l" ] && [ "$l" -gt 0 ] && pass overflow-lost || fail overflow-lost "no steps lost: $(cat ovf.summary)"
want=$((ref + 1000000 * 2))
[ -n "$s" ] && [ -n "$l" ] && [ $((s + l)) = $want ] && pass overflow-accounted ||
	fail overflow-accounted "recorded $s + lost $l != $want executed"
[ "$t" = "$s" ] && pass overflow-post-agrees || fail overflow-post-agrees "post counts $t, collector $s"

# Count mode: the driver's per-CPU counters, no records.
pitrace start --mode count --comm sess_loop -o cnt >/dev/null || fail count-mode "start failed"
"$P/sess_loop" 1000000 </dev/null
pitrace stop >cnt.summary
cat cnt.summary
c=$(sed -n 's/.*stopped: \([0-9]*\) steps counted.*/\1/p' cnt.summary)
[ "$c" = "$ref" ] && pass count-mode || fail count-mode "counted $c, recorded $ref"
exit 0
