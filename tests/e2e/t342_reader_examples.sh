#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# libpitrace's reader (include/pitrace/reader.h) against post's reports on
# the same trace: examples/reader/top_callers.c (calls and returns only)
# and count_steps.c (every step), built against include/ and lib/ as a
# user builds them, read tests/progs/bench_calls's trace (4 threads, qsort
# with a callback, a recursion, libc's string calls).  Calls, Base and Cum
# per function must be profile's; steps per function profile's Base, and
# in all post info's steps; a window's and a symbol filter's the same as
# post's with them; a calls-only pass keeps the engine's fast path (calls
# taken whole) and tells the same calls and returns as a pass that takes
# every step one at a time.  Then tests/progs/arc_signal (three SIGUSR1 handlers):
# signals, sigreturns and task records as post info counts them, and the
# handlers' frames as calls.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

LIB=${PT_LIB:-$ROOT/lib}
[ -e "$LIB/libpitrace.so" ] || skip "$LIB/libpitrace.so is not built (make)"
for ex in top_callers count_steps; do
	cc -Wall -Wextra -Werror -O2 -I"$ROOT/include" -o "$ex" "$ROOT/examples/reader/$ex.c" \
		-L"$LIB" -lpitrace -Wl,-rpath,"$LIB" >cc.log 2>&1 || { cat cc.log; fail "cc $ex.c"; }
done

arc_record tr "$PROGS/bench_calls" 2

# profile's rows as "calls base cum function module", sorted
profile_rows() {	# profile_rows [POST_OPTION...]
	"$POST" -i tr profile --format csv "$@" | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    print(r["calls"], r["base"], r["cum"], r["function"], r["module"])' | sort
}

profile_rows >profile.rows || fail "post profile"
[ "$(wc -l <profile.rows)" -gt 20 ] || fail "post profile has too few rows"
./top_callers -s tr 2>stats.err | sort >reader.rows || fail "top_callers"
expect_same_file "calls, Base and Cum per function" profile.rows reader.rows
# "pass: N steps, S one at a time, C calls taken whole (W steps), ..."
whole=$(sed -n 's/.* \([0-9]*\) calls taken whole.*/\1/p' stats.err)
[ -n "$whole" ] && [ "$whole" -gt 100 ] ||
	{ cat stats.err; fail "a calls-only pass took not over 100 calls whole: '$whole'"; }

# the fast path's calls and returns, every field of each, in order, are
# those of the engine taking every step one at a time (as post --verify)
./top_callers -e tr >fast.events || fail "top_callers -e"
./top_callers -e -1 tr >single.events || fail "top_callers -e -1"
[ "$(wc -l <fast.events)" -gt 1000 ] || fail "under 1000 calls and returns told"
expect_same_file "calls and returns one step at a time" fast.events single.events

steps=$("$POST" -i tr info | sed -n 's/^steps: *//p')
./count_steps tr >steps.out || fail "count_steps"
expect_eq "steps of the trace" "$steps" "$(sed -n 's/^steps //p' steps.out)"
expect_eq "kernel steps" 0 "$(sed -n 's/^kernel //p' steps.out)"
grep -q '^short-bytes' steps.out && fail "steps with fewer bytes than their length"
[ "$(sed -n 's/^syscalls //p' steps.out)" -gt 0 ] || fail "no system call told"
# every step of a function is its Base
awk '$2 != 0 { print $2, $4, $5 }' profile.rows | sort >profile.base
grep -v '^[a-z]' steps.out | sort >reader.base
expect_same_file "steps per function" profile.base reader.base
# the instruction classes add up to the steps
expect_eq "steps by class" "$steps" "$(awk '$1 == "class" { n += $3 } END { print n }' steps.out)"

# a window: its steps only, and its Base per function
./count_steps -f 1000 -t 20999 tr >window.out || fail "count_steps -f -t"
expect_eq "steps of the window" 20000 "$(sed -n 's/^steps //p' window.out)"
profile_rows --from 1000 --to 20999 | awk '$2 != 0 { print $2, $4, $5 }' | sort >profile.wbase
grep -v '^[a-z]' window.out | sort >reader.wbase
expect_same_file "steps per function in a window" profile.wbase reader.wbase

# a symbol filter: the steps of the functions it takes
./count_steps -S cmp tr >cmp.out || fail "count_steps -S cmp"
expect_eq "steps of cmp" "$(awk '$4 == "cmp" { print $2 }' profile.rows)" \
	"$(awk '$2 == "cmp" { print $1 }' cmp.out)"
expect_eq "functions with -S cmp" 1 "$(grep -c -v '^[a-z]' cmp.out)"

# signals and tasks, as post info counts them
LD_BIND_NOW=1 arc_record sig "$PROGS/arc_signal"
./count_steps sig >sig.out || fail "count_steps on arc_signal"
"$POST" -i sig info >sig.info || fail "post info"
async=$(sed -n 's/^async: *//p' sig.info)
expect_eq "signals of arc_signal" 3 "$(sed -n 's/^async signal //p' sig.out)"
expect_eq "signals" "$(sed -n 's/.*signals \([0-9]*\).*/\1/p' <<<"$async")" \
	"$(sed -n 's/^async signal //p' sig.out)"
expect_eq "sigreturns" "$(sed -n 's/.*sigreturns \([0-9]*\).*/\1/p' <<<"$async")" \
	"$(sed -n 's/^async sigreturn //p' sig.out)"
expect_eq "task records" "$(sed -n 's/^tasks: *//p' sig.info)" "$(sed -n 's/^tasks //p' sig.out)"
expect_eq "steps of arc_signal" "$(sed -n 's/^steps: *//p' sig.info)" \
	"$(sed -n 's/^steps //p' sig.out)"
./top_callers sig >sig.rows || fail "top_callers on arc_signal"
expect_eq "handler calls" 3 "$(awk '$4 == "on_usr1" { print $1 }' sig.rows)"

# bad input: one line from the library, exit 1
run_expect_status "top_callers on no trace" 1 ./top_callers no-such-trace 2>err.out
expect_eq "lines said" 1 "$(wc -l <err.out)"
grep -q 'no-such-trace' err.out || fail "the error does not name the trace: $(cat err.out)"
echo "PASS"
