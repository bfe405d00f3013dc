#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# e2e: serial (see tests/run-e2e.sh)
# KCachegrind opens post's callgrind export: started under Xvfb, it loads
# the file without a parse error, its window (read back by OCR from a
# screenshot) shows the flat profile's functions and the trace's total, and
# its Machine Code view shows the instructions with their costs and source
# lines (positions: instr line).  PT_SCREENSHOT_DIR keeps the screenshots.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

for tool in kcachegrind Xvfb xdotool import tesseract dbus-run-session; do
	command -v $tool >/dev/null || skip "$tool is not installed (make deps)"
done

arc_record demo.data "$PROGS/demo"
"$POST" -i demo.data export --format callgrind -o demo.cg || fail "export"
total=$("$POST" -i demo.data profile | sed -n 's/^# total: \([0-9]*\) steps.*/\1/p')
[ -n "$total" ] || fail "no total in post profile"

# A private X server, D-Bus session and configuration (no tip of the day).
mkdir -p home/config
printf '[TipOfDay]\nRunOnStart=false\n' >home/config/kcachegrindrc
exec 3>display
Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp >xvfb.log 2>&1 &
xvfb=$!
exec 3>&-
trap 'kill $kc $xvfb 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 600); do [ -s display ] && break; kill -0 $xvfb 2>/dev/null || break; sleep 0.1; done
[ -s display ] || { cat xvfb.log; fail "Xvfb did not start"; }
export DISPLAY=:$(cat display)
XDG_CONFIG_HOME=$TMP/home/config XDG_RUNTIME_DIR=$TMP/home dbus-run-session -- \
	kcachegrind demo.cg >kc.out 2>kc.err &
kc=$!

# shot NAME: a screenshot and its text, and the status bar's (the window's
# bottom line, read alone and enlarged, as OCR reads small text best);
# 0 when the status bar shows the loaded file's total.
shot() {
	import -window root "$1.png" 2>/dev/null && tesseract "$1.png" "$1" txt tsv 2>/dev/null
	[ -n "${PT_SCREENSHOT_DIR:-}" ] && cp "$1.png" "$PT_SCREENSHOT_DIR/kcachegrind-$1.png"
	convert "$1.png" -crop 800x24+0+976 -scale 300% status.png 2>/dev/null &&
		tesseract status.png status --psm 7 2>/dev/null
	grep -Eq 'Total [Ii]nstruction Fetch Cost: [0-9]' status.txt 2>/dev/null
}
win=
for _ in $(seq 3000); do
	kill -0 $kc 2>/dev/null || break
	win=$(xdotool search --onlyvisible --class kcachegrind 2>/dev/null | head -1)
	[ -n "$win" ] && break
	sleep 0.2
done
[ -n "$win" ] || { cat kc.err; fail "kcachegrind opened no window"; }
xdotool windowsize "$win" 1600 1000
# it has loaded when the status bar shows the total (a big file takes a while)
loaded=
for _ in $(seq ${PT_KC_SHOTS:-200}); do
	kill -0 $kc 2>/dev/null || break
	shot profile && { loaded=1; break; }
done
grep -E '^Loading .*: [0-9]+ : ' kc.err && fail "kcachegrind could not parse lines of the export"
[ -n "$loaded" ] || { cat kc.err; fail "kcachegrind shows no loaded profile"; }
shown=$(sed -En 's/.*Total [Ii]nstruction Fetch Cost: ([0-9 ,]*).*/\1/p' status.txt | tr -d ' ,')
[ "$shown" = "$total" ] || { cat status.txt; fail "total in the status bar: expected $total, read '$shown'"; }
# OCR reads an underscore as nothing at times (qsortr): words
# are compared without them
for fn in main fib qsort_r; do
	awk -F'\t' -v w="$fn" '{ g = $12; gsub("_", "", g); gsub("_", "", w) } g == w' profile.tsv |
		grep -q . ||
		{ cat profile.txt; fail "the flat profile shows no $fn"; }
done

# The Machine Code tab: main's instructions (selected at start) with costs and lines.
tab=$(awk -F'\t' '$12 == "Machine" { print $7 + $9 / 2, $8 + $10 / 2; exit }' profile.tsv)
[ -n "$tab" ] || fail "no Machine Code tab in the window"
# shellcheck disable=SC2086
xdotool mousemove $tab click 1
code=
for _ in $(seq 20); do
	kill -0 $kc 2>/dev/null || break
	shot code
	grep -q 'Assembly Instructions' code.txt && grep -q 'demo.c:[0-9]' code.txt && { code=1; break; }
done
[ -n "$code" ] || { cat code.txt; fail "the Machine Code view shows no instructions with source lines"; }
grep -Eq '\b(push|mov|call)\b' code.txt || { cat code.txt; fail "no instructions in the Machine Code view"; }
echo "PASS"
