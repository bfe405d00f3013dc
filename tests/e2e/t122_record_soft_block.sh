#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# record (software block steps, the default on x86_64) runs straight-line
# code natively to a breakpoint and records it instruction by instruction:
# every report of such a recording is the --single-step recording's, byte
# for byte (counts by instruction and by symbol, arc, tree; thread and
# process ids masked), for programs with threads, fork, handled signals, a
# handled fault in the middle of a run, a fault that kills, rep strings,
# cpuid, code written at run time, and programs this project did not
# write: Debian's /bin/true, gzip, pigz (zlib's deflate) and lua5.4 (its
# hash seed made deterministic by a fixed time()).  Signals sent from
# outside land anywhere: pt_async_sig's counts that don't depend on where
# are exact.  pushf shows no trap flag either way.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_loops pt_jit bench_calls repmovs pt_cpuid pt_signal pt_fault_mid pt_segv pt_forkspin pt_threads \
	pt_async_sig pt_fid_pushf
for c in gzip pigz lua5.4; do
	command -v $c >/dev/null || skip "$c not installed (make deps)"
done
[ "$(uname -m)" = x86_64 ] || skip "software block steps are x86_64's (single steps elsewhere)"

# reports TRACEDIR: what post says of TRACEDIR/t, ids masked
reports() {
	(cd "$1" && for r in "counts --by insn" "counts --by symbol" arc tree; do
		# shellcheck disable=SC2086
		"$POST" -i t $r || echo "post $r failed"
	done) | sed -E 's/(thread|pid|tid|process) [0-9]+/\1 N/g'
}

# runs TRACEDIR: the straight-line runs the header's note counts
runs() { "$POST" -i "$1/t" info | sed -n 's/^note: *software block steps: \([0-9]*\) .*/\1/p'; }

# record_both NAME [record options --] CMD...: step.NAME/t and soft.NAME/t,
# the same exit status and output
record_both() {
	local name=$1
	shift
	rm -rf "step.$name" "soft.$name"
	mkdir "step.$name" "soft.$name"
	"$PITRACE" record --single-step -o "step.$name/t" "$@" >"step.$name/out" 2>"step.$name/err"
	echo $? >"step.$name/rc"
	"$PITRACE" record -o "soft.$name/t" "$@" >"soft.$name/out" 2>"soft.$name/err"
	echo $? >"soft.$name/rc"
	expect_same_file "$name: exit status" "step.$name/rc" "soft.$name/rc"
	# pt_threads prints its thread ids, in the order its threads end
	for f in "step.$name/out" "soft.$name/out"; do
		sed -E 's/^(thread|main) [0-9]+/\1 N/' "$f" | sort >"$f.sorted"
		mv "$f.sorted" "$f"
	done
	expect_same_file "$name: output" "step.$name/out" "soft.$name/out"
}

# compare NAME [record options --] CMD...: both recordings, the same reports
compare() {
	local name=$1

	record_both "$@"
	reports "step.$name" >"step.$name/reports"
	reports "soft.$name" >"soft.$name/reports"
	expect_same_file "$name: reports" "step.$name/reports" "soft.$name/reports"
	echo "$name: $(grep -m1 '^# total' "soft.$name/reports"), $(runs "soft.$name") runs"
}

compare loops "$PROGS/pt_loops"
[ "$(runs soft.loops)" -gt 1000 ] ||
	fail "pt_loops: $(runs soft.loops) runs, straight-line code was stepped"
compare repmovs "$PROGS/repmovs"
grep -q "^ *100 .*rep movsb" soft.repmovs/reports || fail "rep movsb does not count 100"
compare cpuid "$PROGS/pt_cpuid"
# code written at run time (writable, shared, or made executable later)
compare jit "$PROGS/pt_jit"
expect_eq "pt_jit: steps in generated code" 352 \
	"$("$POST" -i soft.jit/t counts --by insn | awk '$4 == "[anon]" { s += $1 } END { print s }')"
compare signal "$PROGS/pt_signal"
compare fault_mid "$PROGS/pt_fault_mid"
compare segv "$PROGS/pt_segv"
compare forkspin --follow-fork -- "$PROGS/pt_forkspin"
# which thread waits for stdout's lock, and exits last, varies from one
# recording to the next: the threads' own work does not
record_both threads "$PROGS/pt_threads"
for sym in pt_spin pt_spin2 worker main; do
	expect_eq "threads: $sym" "$(count_of step.threads/t $sym)" "$(count_of soft.threads/t $sym)"
done
expect_eq "threads: pt_spin" 120006 "$(count_of soft.threads/t pt_spin)"
# threads being created while another runs natively: a new thread, or one
# the scheduler lets go, waits for the run's end (it once stepped onto the
# run's breakpoint in clone3 and died of SIGTRAP, 2 recordings in 10)
for i in 1 2 3 4 5 6 7 8 9 10; do
	rm -rf bc
	timeout 300 "$PITRACE" record -o bc -- "$PROGS/bench_calls" 2 >/dev/null 2>bc.err ||
		{ cat bc.err; fail "bench_calls, recording $i: exit status $?"; }
	"$POST" -i bc arc --check >/dev/null || fail "bench_calls, recording $i: arc --check"
done
compare true /bin/true
head -c 3000 "$ROOT/README.md" >small
compare gzip gzip -c small
compare pigz pigz -p 1 -c small
# Lua seeds its string hashes with time(): the same time, the same run
${CC:-gcc} -O2 -shared -fPIC -o fixed_time.so "$ROOT/tests/bench/fixed_time.c" ||
	fail "cannot build fixed_time.so"
compare lua env LD_PRELOAD="$PWD/fixed_time.so" lua5.4 -e 'local t = {} for i = 1, 200 do t["k" .. i % 37] = i end print(#t)'
# --single-step writes no note; the default says what it did and its one limit
"$POST" -i step.loops/t info | grep -q "software block" && fail "--single-step: a software block note"
"$POST" -i soft.loops/t info | grep -q "exact unless the program reads its own code" ||
	fail "the default's note does not say its limit"

# where the signals land varies: body's instructions all run equally often
"$PITRACE" record -o async -- "$PROGS/pt_async_sig" >out 2>err ||
	fail "pt_async_sig: $?"
expect_eq "pt_async_sig's output" "handled 20" "$(cat out)"
"$POST" -i async counts --by insn >async.counts
expect_eq "pt_spin2's loop: 20 x 300" 6000 "$(awk '$4 == "pt_spin2+0x2" { print $1 }' async.counts)"
awk '$4 ~ /^body/ { print $1 }' async.counts >body.counts
expect_eq "body's instructions" 17 "$(wc -l <body.counts)"
expect_eq "body's different counts" 1 "$(sort -u body.counts | wc -l)"
gaps=$("$POST" -i async arc --check | head -1 | tr ' ' '\n' | sed -n '/^gaps$/{n;p}')
expect_eq "pt_async_sig: gaps" 0 "$gaps"

same pt_fid_pushf "soft-block" --soft-block
echo "PASS"
