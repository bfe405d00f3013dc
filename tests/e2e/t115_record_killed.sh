#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# e2e: serial (see tests/run-e2e.sh)
# A command killed by a signal: pitrace record exits 128+N and says which
# signal, at which instruction, in which function and line; the faulting
# instruction is the thread's last step.  Every recording ends with one
# summary line (steps, lost, processes, threads, rate, where); on a
# terminal a live step count and rate come before it, never when stderr is
# a file.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_segv pt_exit3

line=$(grep -nF '/* FAULT */' "$ROOT/tests/progs/pt_segv.c" | cut -d: -f1)
"$PITRACE" record -o segv -- "$PROGS/pt_segv" >out 2>err
expect_eq "exit status of a SIGSEGV death" 139 $?
expect_eq "the command's output" "about to die" "$(cat out)"
msg=$(grep ' killed by ' err)
[[ "$msg" =~ ^pitrace:\ .*/pt_segv\ killed\ by\ SIGSEGV\ at\ 0x([0-9a-f]+)\ in\ crash\ \(pt_segv\.c:$line\),\ accessing\ 0x0$ ]] ||
	{ cat err; fail "no 'killed by SIGSEGV at ... in crash (pt_segv.c:$line)' line"; }
pc=${BASH_REMATCH[1]}
# the faulting instruction is the last step, at that address and line
last=$("$POST" -i segv steps | grep -v '^#' | tail -1)
read -r _ _ step_pc sym src _ <<<"$last"
expect_eq "last step's address" "$pc" "$step_pc"
[[ "$sym" == crash+0x* ]] || fail "last step not in crash: $last"
expect_eq "last step's line" "pt_segv.c:$line" "$src"
grep -qE '^pitrace: [0-9]+ steps, 0 lost, 1 process, 1 thread in [0-9.]+ s \([0-9.]+[kM]? steps/s\): trace in segv$' err ||
	{ cat err; fail "no summary line"; }
expect_eq "summary steps = post's" "$(info_field segv steps)" \
	"$(sed -n 's/^pitrace: \([0-9]*\) steps, .*/\1/p' err)"
expect_eq "stderr lines (summary, death)" 2 "$(wc -l <err)"

# a signal it sends itself: named, where raise() made the system call
"$PITRACE" record -o term -- "$PROGS/pt_segv" 15 >/dev/null 2>err
expect_eq "exit status of a SIGTERM death" 143 $?
grep -qE "^pitrace: .*/pt_segv killed by SIGTERM at 0x[0-9a-f]+ in [a-z_]+" err ||
	{ cat err; fail "no 'killed by SIGTERM' line"; }
# SIGABRT dumps core where allowed: said like a shell says it
(ulimit -c unlimited; cd "$TMP" && "$PITRACE" record -o abrt -- "$PROGS/pt_segv" 6 >/dev/null 2>err)
expect_eq "exit status of a SIGABRT death" 134 $?
grep -qE "killed by SIGABRT at 0x[0-9a-f]+ in .*(\(core dumped\))?$" err || { cat err; fail "SIGABRT"; }
rm -f core core.*

# a normal exit: the summary only
"$PITRACE" record -o e3 -- "$PROGS/pt_exit3" 2>err
expect_eq "exit status" 3 $?
expect_eq "stderr of a normal recording" 1 "$(wc -l <err)"
grep -q '^pitrace: 3 steps, 0 lost, 1 process, 1 thread in ' err || { cat err; fail "summary of pt_exit3"; }
grep -q $'\r' err && fail "progress written to a file"

# on a terminal: the live count and rate, then the summary in its place.
# The live line comes after a second of recording, however fast the host
# records: a command that runs until it is killed, killed once it shows.
command -v script >/dev/null || skip "script (util-linux) not installed: no terminal to test"
need_prog pt_forever
: >counter
script -qfec "'$PITRACE' record -o tty -- '$PROGS/pt_forever' '$TMP/counter' >/dev/null" \
	typescript >/dev/null 2>&1 &
spid=$!
deadline=$((SECONDS + 300))
until grep -qE $'\rpitrace: [0-9]+ steps, [0-9.]+[kM]? steps/s' typescript 2>/dev/null; do
	[ $SECONDS -lt $deadline ] || { kill $spid; cat -v typescript; fail "no live step count on a terminal"; }
	sleep 0.2
done
pkill -TERM -xf "$PROGS/pt_forever $TMP/counter" || fail "pt_forever is not running"
wait $spid
grep -q 'steps, 0 lost, 1 process, 1 thread in' typescript || { cat -v typescript; fail "no summary on a terminal"; }
grep -q 'pt_forever killed by SIGTERM' typescript || { cat -v typescript; fail "no death line on a terminal"; }
echo "PASS"
