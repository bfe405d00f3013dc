#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bad input to record and attach: one "pitrace: error:" line and the
# documented exit status (2 usage, 1 runtime, 127/126 command not found /
# not executable, like a shell).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_exit3 pt_forever

# status | message (grep -E) | arguments
while IFS='|' read -r want msg args; do
	# shellcheck disable=SC2086
	"$PITRACE" $args >out 2>err
	rc=$?
	[ "$rc" = "$want" ] || fail "pitrace $args: exit status $rc, expected $want ($(cat err))"
	[ "$(wc -l <err)" = 1 ] || fail "pitrace $args: expected one line on stderr, got: $(cat err)"
	grep -qE "^pitrace: error: .*$msg" err || fail "pitrace $args: '$(cat err)' does not match '$msg'"
done <<TABLE
2|no command to run|record
2|unknown option '--bogus'|record --bogus -- true
2|unknown option '-q'|record -q
2|option --on needs an argument \\(SYMBOLS\\)|record --on
2|option -o/--output needs an argument \\(DIR\\)|record -o
2|option --mode needs an argument|record --mode
2|option --backend needs an argument|record --backend
2|option --kernel-limit needs an argument|record --kernel-limit
2|option --buffer-size needs an argument|record --buffer-size
2|option --follow-fork takes no argument|record --follow-fork=yes -- true
2|option -p/--pid needs an argument|attach -p
2|option -o/--output needs an argument|attach -p 1 -o
2|option --on needs an argument|attach -p 1 --on
2|'1,' is not a list of process ids|attach -p 1,
2|',1' is not a list of process ids|attach -p ,1
2|'1,,2' is not a list of process ids|attach -p 1,,2
2|'\\+1' is not a list of process ids|attach -p +1
2|'0' is not a list of process ids|attach -p 0
2|'99999999999' is not a list of process ids|attach -p 99999999999
2|--mode count needs the driver backend|record --backend ptrace --mode count -- true
2|--on needs the ptrace backend|record --backend driver --on main -- true
2|record: --mode 'fast' is not one of step, block \\(or count, with --backend driver\\) \\(see 'pitrace record --help'\\)$|record --mode fast -- true
2|attach: --mode 'fast' is not one of step, block \\(see 'pitrace attach --help'\\)$|attach -p 1 --mode fast
127|cannot run 'no-such-command': No such file or directory|record -- no-such-command
126|cannot run '/etc/passwd': Permission denied|record -- /etc/passwd
1|cannot create /proc/no-such-dir|record -o /proc/no-such-dir -- $PROGS/pt_exit3
2|which process|attach
2|'abc' is not a list of process ids|attach -p abc
2|unexpected argument 'extra'|attach -p 1 extra
1|no process 999999999|attach -p 999999999
2|--kernel needs the driver backend \\(the ptrace backend sees user mode only\\)|record --kernel -- true
2|--kernel-limit needs the driver backend|record --backend ptrace --kernel-limit 5 -- true
TABLE

# options of both backends (--mode) or the driver's are no usage error with the driver
for args in "--mode count --kernel" "--mode block" "--follow-fork" "-z --aslr"; do
	# shellcheck disable=SC2086
	"$PITRACE" record --backend driver $args -o drv -- true >/dev/null 2>err
	[ $? != 2 ] || fail "record --backend driver $args: a usage error: $(cat err)"
done

# --help: usage on stdout, status 0
"$PITRACE" record --help >out || fail "record --help: exit status $?"
grep -q "^usage: pitrace record" out || fail "record --help prints no usage"
"$PITRACE" attach --help >out || fail "attach --help: exit status $?"
grep -q "^usage: pitrace attach" out || fail "attach --help prints no usage"

# a process someone else already traces: EPERM, said clearly
"$PITRACE" record -o busy -- "$PROGS/pt_forever" "$TMP/ctr" 2>/dev/null &
rec=$!
for _ in $(seq 50); do [ -s "$TMP/ctr" ] && break; sleep 0.1; done
victim=$(pgrep -P $rec pt_forever)
[ -n "$victim" ] || { kill $rec; fail "pt_forever did not start under pitrace"; }
"$PITRACE" attach -p "$victim" -o a2 >out 2>err
rc=$?
kill -TERM $rec
wait $rec
expect_eq "attach to a traced process: status" 1 "$rc"
grep -q "^pitrace: error: cannot trace $victim: Operation not permitted (another tracer has it (pid [0-9]*, pitrace))$" err ||
	fail "EPERM message: $(cat err)"

# another user's process, from a pitrace without CAP_SYS_PTRACE: the uids are
# the cause, and Yama is named only where it exists
command -v setpriv >/dev/null || skip "setpriv is not installed (the rest passed)"
id nobody >/dev/null 2>&1 || skip "no user nobody (the rest passed)"
sleep 30 &
victim=$!
mkdir nb && chown nobody nb
(cd nb && setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups \
	"$PITRACE" attach -p $victim -o a3) >out 2>err
rc=$?
expect_eq "attach to another user's process: status" 1 "$rc"
grep -q "^pitrace: error: cannot trace $victim: Operation not permitted (it runs as root and pitrace as nobody, without CAP_SYS_PTRACE: run pitrace as that user or as root)$" err ||
	fail "another user's process: $(cat err)"
if [ -e /proc/sys/kernel/yama/ptrace_scope ]; then
	echo "note: Yama is present here; its case was not exercised"
else
	grep -q yama err && fail "Yama named where it does not exist: $(cat err)"
fi
[ -e nb/a3 ] && fail "a refused attach left nb/a3 behind"
kill $victim
wait $victim 2>/dev/null
echo "PASS"
