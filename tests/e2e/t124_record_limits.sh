#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# e2e: serial (see tests/run-e2e.sh)
# --max-steps N and --duration SECONDS end a recording cleanly:
# - record --max-steps N: exactly N steps in the trace (over all threads,
#   and with --on only the steps recorded), state complete, `post info`
#   says "ended: max-steps"; the command runs on untraced to its end, its
#   whole output comes out and pitrace exits with its status;
# - record --duration: "ended: duration" and the command still finishes
#   natively (whatever the number of steps, which depends on the host);
# - attach --max-steps: detaches after N steps, the process runs on and
#   later exits normally;
# - a run to the end says "ended: exited";
# - a value that is not a count or a number of seconds: one line, exit 2.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_limits pt_loops pt_threads pt_exit3

# The command's exit status, and its stdout and stderr without pitrace's lines.
"$PROGS/pt_limits" 1000 >want.out 2>want.err
expect_eq "pt_limits natively: exit status" 3 $?

# --- record --max-steps: exact count, the command's own end ---
"$PITRACE" record --max-steps 1000 -o m -- "$PROGS/pt_limits" 1000 >got.out 2>got.all
expect_eq "max-steps: exit status (the command's)" 3 $?
expect_same_file "max-steps: stdout" want.out got.out
grep -v '^pitrace: ' got.all >got.err
expect_same_file "max-steps: stderr" want.err got.err
grep -q '^pitrace: --max-steps 1000 reached: .*runs on untraced' got.all ||
	{ cat got.all; fail "max-steps: no line saying the limit was reached"; }
expect_eq "max-steps: steps in the header" 1000 "$(info_field m steps)"
expect_eq "max-steps: steps the streams hold" 1000 "$(total_of m)"
expect_eq "max-steps: state" complete "$(info_field m state)"
expect_eq "max-steps: ended" max-steps "$(info_field m ended)"
"$POST" -i m info | grep -q '^gaps: *detached 1$' || fail "max-steps: no DETACH gap"

# a static program whose count is known (10522 steps): a limit below it
# cuts it at exactly N, one above it lets it run to its end
"$PITRACE" record --max-steps 777 -o l1 -- "$PROGS/pt_loops" 2>/dev/null
expect_eq "pt_loops --max-steps 777: exit status" 0 $?
expect_eq "pt_loops --max-steps 777: steps" 777 "$(total_of l1)"
# single steps (--single-step; the default runs straight code natively) and
# compressed streams count the same
for opt in --single-step -z; do
	"$PITRACE" record $opt --max-steps 777 -o l1$opt -- "$PROGS/pt_loops" 2>/dev/null
	expect_eq "pt_loops $opt --max-steps 777: exit status" 0 $?
	expect_eq "pt_loops $opt --max-steps 777: steps" 777 "$(total_of l1$opt)"
done
"$PITRACE" record --max-steps 20000 -o l2 -- "$PROGS/pt_loops" 2>/dev/null
expect_eq "pt_loops --max-steps 20000: steps (all of them)" 10522 "$(total_of l2)"
expect_eq "pt_loops --max-steps 20000: ended" exited "$(info_field l2 ended)"
expect_eq "pt_loops --max-steps 20000: state" complete "$(info_field l2 state)"

# --- threads and --on: the limit counts recorded steps, all threads together ---
"$PROGS/pt_threads" | sed 's/[0-9]\{3,\} spin/TID spin/' | sort >want.thr
"$PITRACE" record --on pt_spin,pt_spin2 --max-steps 5000 -o th -- "$PROGS/pt_threads" 2>th.err |
	sed 's/[0-9]\{3,\} spin/TID spin/' | sort >got.thr
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || { cat th.err; fail "threads: exit status $rc"; }
expect_same_file "threads: stdout" want.thr got.thr
expect_eq "threads --on --max-steps 5000: steps" 5000 "$(total_of th)"
expect_eq "threads --on --max-steps 5000: steps in the header" 5000 "$(info_field th steps)"
expect_eq "threads: ended" max-steps "$(info_field th ended)"
# every step is inside the --on functions (pt_spin's loop: dec, jnz)
n1=$(count_of th pt_spin)
n2=$(count_of th pt_spin2)
expect_eq "threads: steps in pt_spin and pt_spin2" 5000 $(( ${n1:-0} + ${n2:-0} ))

# --- record --duration: ends by its clock; the command finishes natively ---
# 600 million instructions: a fraction of a second natively, hours traced
"$PROGS/pt_limits" 300000000 >want.long
"$PITRACE" record --duration 0.5 -o d -- "$PROGS/pt_limits" 300000000 >got.long 2>d.err
expect_eq "duration: exit status (the command's)" 3 $?
expect_same_file "duration: stdout" want.long got.long
expect_eq "duration: ended" duration "$(info_field d ended)"
expect_eq "duration: state" complete "$(info_field d state)"
grep -q '^pitrace: --duration 0.5 s reached: ' d.err || { cat d.err; fail "duration: no line"; }
"$POST" -i d counts >/dev/null || fail "duration: the trace does not read"

# --- attach --max-steps: detach after N steps, the process runs on ---
"$PROGS/pt_limits" 1000 "$TMP/stop" >att.out &
victim=$!
trap 'kill $victim 2>/dev/null; rm -rf "$TMP"' EXIT
"$PITRACE" attach --max-steps 3000 -p $victim -o a 2>att.err
expect_eq "attach --max-steps: exit status" 0 $?
kill -0 $victim 2>/dev/null || fail "attach --max-steps: the process did not survive"
expect_eq "attach: TracerPid after detach" 0 "$(awk '/^TracerPid/ { print $2 }' /proc/$victim/status)"
expect_eq "attach --max-steps: steps" 3000 "$(total_of a)"
expect_eq "attach --max-steps: ended" max-steps "$(info_field a ended)"
expect_eq "attach --max-steps: state" complete "$(info_field a state)"
touch "$TMP/stop"
wait $victim
expect_eq "attached process: its own exit status" 3 $?
expect_eq "attached process: its output" "waited a while spun 1000" "$(tr '\n' ' ' <att.out | sed 's/ $//')"

# --- usage errors: one line, exit 2, no trace ---
for bad in "--max-steps 0" "--max-steps -5" "--max-steps 12x" "--max-steps 1.5" \
	   "--duration 0" "--duration -1" "--duration abc" "--duration 2.5s" "--duration inf"; do
	for cmd in record attach; do
		target="-- $PROGS/pt_loops"
		[ $cmd = attach ] && target="-p $$"
		# shellcheck disable=SC2086 # the words of $bad and $target are the arguments
		"$PITRACE" $cmd $bad -o bad $target >bad.out 2>bad.err
		expect_eq "$cmd $bad: exit status" 2 $?
		expect_eq "$cmd $bad: lines" 1 "$(wc -l <bad.err)"
		grep -q -- "^pitrace: error: $cmd: ${bad%% *} '${bad#* }' is not " bad.err ||
			{ cat bad.err; fail "$cmd $bad: message"; }
		[ ! -e bad ] || fail "$cmd $bad: a trace was written"
	done
done
# decimals are seconds: 2.5 is taken (pt_exit3's 3 steps end long before,
# but which comes first is the host's business: either reason will do)
"$PITRACE" record --duration 2.5 -o ok -- "$PROGS/pt_exit3" 2>/dev/null
expect_eq "--duration 2.5: exit status (pt_exit3's)" 3 $?
case $(info_field ok ended) in
exited | duration) ;;
*) fail "--duration 2.5: ended '$(info_field ok ended)'" ;;
esac

# --help says both, for both commands
for cmd in record attach; do
	"$PITRACE" $cmd --backend ptrace --help 2>/dev/null | grep -q -- '--max-steps N' ||
		"$PITRACE" $cmd --help | grep -q -- '--max-steps N' || fail "$cmd --help: no --max-steps"
	"$PITRACE" $cmd --help 2>/dev/null | grep -q -- '--duration SECONDS' ||
		"$PITRACE" $cmd --backend ptrace --help | grep -q -- '--duration SECONDS' ||
		fail "$cmd --help: no --duration"
done
echo "PASS"
