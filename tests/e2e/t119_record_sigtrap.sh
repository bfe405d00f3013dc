#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The traced program's own SIGTRAP state stays its own.  The kernel forces
# each step's SIGTRAP, which unblocks a blocked SIGTRAP and resets an
# ignored one to SIG_DFL; pitrace shows the program the state it set and
# gives it back at a detach.  Programs built here (gcc -O2, static):
# pt_fid_sigmask blocks every signal and reads its mask back, raises a
# blocked SIGTRAP, enters a handler with SIGTRAP blocked, ignores it and
# forks a child that reads what it inherited;
# pt_fid_sigtrap handles SIGTRAP (raise, int3, one raised in its handler,
# SA_RESETHAND); pt_sig_ignored is attached to with SIGTRAP ignored or
# blocked, detached, then raises SIGTRAP and must survive.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
[ "$(uname -m)" = x86_64 ] || skip "the kept SIGTRAP state is x86_64's (docs/record.md)"
command -v gcc >/dev/null || skip "no gcc"
for p in pt_fid_sigmask pt_fid_sigtrap pt_sig_ignored; do
	gcc -O2 -static -Wall -I"$ROOT/tests/progs" -o "$p" "$ROOT/tests/progs/$p.c" 2>cc.err ||
		skip "cannot build $p static: $(head -n 1 cc.err)"
done

# what untraced runs print (so a program that went wrong fails here, not later)
expect_eq "pt_fid_sigmask untraced" "all blocked: trap=1 usr1=1
old mask in the new one's buffer: trap=1, now trap=0
blocked SIGTRAP raised: pending=1 handled=0
unblocked: handled=1 blocked=0
SIGUSR1 handler: saved trap=1 in it trap=1 after it trap=1
old action: handler=1
SIGTRAP ignored: 1
raised while ignored: still ignored 1, handled=1
child: ignored=1 blocked=1" "$(./pt_fid_sigmask)"
expect_eq "pt_fid_sigtrap untraced" "hits=4 codes=-6 128 -6 128
nested: handler ran 2 times
SA_RESETHAND: hits=5 then default=1" "$(./pt_fid_sigtrap)"

for prog in pt_fid_sigmask pt_fid_sigtrap; do
	same "./$prog" "(record)"
	same "./$prog" "(--mode block)" --mode block
	# natively up to the handlers: the --on breakpoints are forced SIGTRAPs too
	same "./$prog" "(--on on_trap)" --on on_trap
done

# the header says what /proc/PID/status showed meanwhile
"$PITRACE" record -o n -- ./pt_fid_sigmask >/dev/null 2>&1
"$POST" -i n info | grep -q "note: *the program blocked, ignored or handled SIGTRAP" ||
	fail "no note of the program's SIGTRAP state in post info"

# counts stay exact: on_trap is one straight run, called 5 times; each int3
# is one step (twice), the handler's SIGTRAP no step of its own
"$PITRACE" record -o c -- ./pt_fid_sigtrap >/dev/null 2>&1
len=$(objdump -d --no-show-raw-insn pt_fid_sigtrap |
	awk '/<on_trap>:$/ { f = 1; next } f && /^$/ { exit } f && /:\t/ { n++ } END { print n }')
[ -n "$len" ] && [ "$len" -gt 0 ] || fail "no on_trap in objdump's output"
expect_eq "on_trap's steps (5 calls of $len)" $((5 * len)) "$(count_of c on_trap)"
expect_eq "int3 steps" 2 \
	"$("$POST" -i c counts --by insn | awk '!/^#/ && $NF == "int3" { n += $1 } END { print n + 0 }')"

# attach, detach (SIGTERM to pitrace), then SIGTRAP: as untraced, it survives
for mode in ign block; do
	rm -rf a ctr
	./pt_sig_ignored $mode "$TMP/ctr" >victim.out &
	victim=$!
	trap 'kill -9 $victim 2>/dev/null; rm -rf "$TMP"' EXIT
	for _ in $(seq 600); do [ -s "$TMP/ctr" ] && break; sleep 0.1; done
	"$PITRACE" attach -p $victim -o a 2>err &
	tracer=$!
	for _ in $(seq 600); do
		[ "$(stat -c %s a/steps.t$victim 2>/dev/null || echo 0)" -gt 32 ] && break
		sleep 0.1
	done
	c1=$(cat "$TMP/ctr")
	for _ in $(seq 600); do [ "$(cat "$TMP/ctr")" != "$c1" ] && break; sleep 0.1; done
	kill -TERM $tracer
	wait $tracer
	expect_eq "attach ($mode): exit status" 0 $?
	[ "$(count_of a pt_spin)" -gt 0 ] 2>/dev/null || fail "attach ($mode): no pt_spin steps"
	expect_eq "attach ($mode): TracerPid after detach" 0 \
		"$(awk '/^TracerPid/ { print $2 }' /proc/$victim/status)"
	field=SigIgn
	[ $mode = block ] && field=SigBlk
	bits=$(awk -v f="$field:" '$1 == f { print $2 }' /proc/$victim/status)
	expect_eq "attach ($mode): SIGTRAP in $field after detach" 1 $(((0x$bits >> 4) & 1))
	c1=$(cat "$TMP/ctr")
	for _ in $(seq 600); do [ "$(cat "$TMP/ctr")" != "$c1" ] && break; sleep 0.1; done
	[ "$(cat "$TMP/ctr")" != "$c1" ] || fail "attach ($mode): the process stopped working"
	kill -USR1 $victim
	wait $victim
	expect_eq "attach ($mode): status after raise(SIGTRAP)" 0 $?
	expect_eq "attach ($mode): output" survived "$(cat victim.out)"
done
echo "PASS"
