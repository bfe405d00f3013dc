#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/progs/arc_nested_signal.c, built with gcc and with clang at -O2: a
# SIGUSR1 handler on an alternate stack raises SIGUSR2, which arrives at
# the exit of tgkill inside the outer handler; a SIGSEGV probe recovers
# with siglongjmp.  The inner handler is an asynchronous entry nested in
# the outer one (the outer frames are interrupted, not ended): no
# unmatched return, three entries of each handler, the handlers' self
# instructions and calls as callgrind counts them, and flow names the
# function a jump replaced (on_usr2, not the frame below it).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

prog_gcc=$PROGS/arc_nested_signal
[ -x "$prog_gcc" ] || skip "$prog_gcc is not built (make progs)"
command -v clang >/dev/null || skip "clang is not installed (make deps)"
clang -O2 -g -o "$TMP/arc_nested_signal.clang" "$ROOT/tests/progs/arc_nested_signal.c" ||
	fail "clang cannot build arc_nested_signal.c"

for prog in "$prog_gcc" "$TMP/arc_nested_signal.clang"; do
	what=${prog##*/}
	rm -rf oracle
	"$prog" || fail "$what fails natively"
	LD_BIND_NOW=1 arc_record oracle "$prog"
	arc_check oracle 40
	expect_eq "$what: unmatched returns" 0 "$(arc_stat oracle unmatched)"
	"$POST" -i oracle flow >flow || fail "$what: flow"
	for h in on_usr1 on_usr2 on_segv; do
		expect_eq "$what: asynchronous entries of $h" 3 \
			"$(grep -cE "! $h( \[[^]]*\])? \(asynchronous entry\)" flow)"
	done
	# each on_usr2 entry is deeper than the on_usr1 entry before it
	awk '/! on_usr1 (\[[^]]*\] )?\(asynchronous entry\)/ { d1 = $3 }
	     /! on_usr2 (\[[^]]*\] )?\(asynchronous entry\)/ { if ($3 <= d1) bad++; n++ }
	     END { exit !(n == 3 && !bad) }' flow ||
		fail "$what: on_usr2 is not nested in on_usr1: $(grep -E '! on_usr[12]' flow)"
	expect_eq "$what: the restorer after on_usr2 says what it replaced" 3 \
		"$(grep -cE '> __restore_rt( \[libc.so.6\])? \(jump from on_usr2\)' flow)"
	# The handlers of the nested signals, as callgrind counts them.  Not
	# probe, on_segv nor main: after siglongjmp out of on_segv into probe,
	# callgrind charges probe's instructions to on_segv until probe returns
	# (42 against 24 for on_segv here); post charges them to probe, whose
	# code they are (the landing unwinds on_segv's frame).
	arc_oracle "$prog" on_usr1:async=3 on_usr2:async=3
done
echo "PASS"
