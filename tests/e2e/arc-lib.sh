# SPDX-License-Identifier: GPL-2.0
# Helpers of the call-flow tests (t3*.sh); source after lib.sh.

# arc_record DIR PROG [ARGS...]: trace PROG (every step, from its exec) into DIR.
# `pitrace record` when it can trace here, else the test-only recorder
# tests/progs/arc_stepper (PT_ARC_RECORDER=stepper|pitrace forces one).
arc_record() {
	local dir=$1
	shift
	[ -x "$1" ] || skip "$1 is not built (make progs)"
	case ${PT_ARC_RECORDER:-auto} in
	pitrace) "$PITRACE" record -o "$dir" -- "$@" >"$TMP/record.out" 2>&1 ;;
	stepper) "$PROGS/arc_stepper" "$dir" "$@" >"$TMP/record.out" 2>&1 ;;
	*)
		if "$PITRACE" record -o "$TMP/probe" -- "$PROGS/arc_basic" >/dev/null 2>&1 &&
			[ "$("$POST" -i "$TMP/probe" arc --check 2>/dev/null | head -1 | cut -d' ' -f2)" = 23 ]; then
			"$PITRACE" record -o "$dir" -- "$@" >"$TMP/record.out" 2>&1
		else
			[ -x "$PROGS/arc_stepper" ] || skip "neither pitrace record nor arc_stepper can trace"
			"$PROGS/arc_stepper" "$dir" "$@" >"$TMP/record.out" 2>&1
		fi
		;;
	esac
	[ -f "$dir/header" ] || { cat "$TMP/record.out"; fail "no trace of $*"; }
	arc_verify "$dir"
}

# arc_verify DIR: the main reports of DIR (counts, arc, tree, flow) print the same
# through the fast paths (counts' paths, runs, calls taken whole) as one step at a
# time: post --verify, the slow pass the fast one's oracle, on every trace recorded.
arc_verify() {
	local r
	for r in counts arc tree flow; do
		"$POST" -i "$1" --verify $r >"$TMP/verify.out" 2>&1 &&
			grep -q '^verify: [0-9]* steps, fast and step-at-a-time agree$' "$TMP/verify.out" ||
			{ cat "$TMP/verify.out"; fail "post --verify $r on $1"; }
	done
}

# arc_norm DIR: stdin to stdout with DIR's process and thread ids as ID0,
# ID1... (with the spaces before them squeezed to one, as ids vary in width)
# and the traced command reduced to its base name, for golden comparisons.
arc_norm() {
	local ids sed_args=()
	ids=$("$POST" -i "$1" tree 2>/dev/null | sed -n 's/^# thread \([0-9]*\) (pid \([0-9]*\))$/\1 \2/p')
	local n=0
	for id in $ids; do
		sed_args+=(-e "s/ *\\b$id\\b/ ID$n/g")
		n=$((n + 1))
	done
	sed -e 's|^# command: .*/|# command: |' "${sed_args[@]}"
}

# arc_golden NAME DIR REPORT...: `post REPORT` on DIR must equal expected/NAME.
arc_golden() {
	local name=$1 dir=$2
	shift 2
	"$POST" -i "$dir" "$@" >"$TMP/out.raw" 2>"$TMP/err" || { cat "$TMP/err"; fail "post $*"; }
	arc_norm "$dir" <"$TMP/out.raw" >"$TMP/$name"
	if [ -n "${PT_UPDATE_GOLDEN:-}" ]; then
		cp "$TMP/$name" "$EXPECTED/$name"
	fi
	expect_same_file "post $*" "$EXPECTED/$name" "$TMP/$name"
}

# arc_check DIR MAXDEPTH: the invariants hold and no stack went deeper than MAXDEPTH.
arc_check() {
	local out depth
	out=$("$POST" -i "$1" arc --check 2>&1) || { echo "$out"; fail "invariants violated"; }
	echo "$out"
	depth=$(echo "$out" | sed -n 's/.* max-depth \([0-9]*\) .*/\1/p')
	[ -n "$depth" ] || fail "no max-depth in: $out"
	[ "$depth" -le "$2" ] || fail "stack grew to $depth frames, bound $2"
}

# arc_stat DIR KEY: a number from `post arc --check` (steps, threads, unmatched, async, ...).
arc_stat() {
	"$POST" -i "$1" arc --check | head -1 | tr ' ' '\n' | sed -n "/^$2\$/{n;p}"
}

# arc_annotate DIR [FILTER...]: callgrind_annotate reads post's callgrind export of
# DIR and shows every function's Base and Cum as post profile does (cg-annotate-check.py).
arc_annotate() {
	local dir=$1
	shift
	command -v callgrind_annotate >/dev/null || skip "callgrind_annotate (valgrind) is not installed"
	command -v python3 >/dev/null || skip "python3 is not installed"
	"$POST" -i "$dir" export --format callgrind "$@" -o "$TMP/annotate.cg" || fail "post export"
	"$POST" -i "$dir" profile --wide "$@" >"$TMP/annotate.prof" || fail "post profile"
	python3 "$ROOT/tests/e2e/cg-annotate-check.py" "$TMP/annotate.cg" "$TMP/annotate.prof" ||
		fail "callgrind_annotate reads post's export of $dir otherwise than post profile"
}

# arc_oracle PROG FUNCTION...: compare post's self instructions and calls of
# FUNCTIONs in the trace "oracle" (recorded with LD_BIND_NOW=1) with valgrind's
# callgrind read by callgrind_annotate (arc-oracle.py), and post's export with
# post profile (arc_annotate).  ARC_ORACLE_BIND_NOW='': callgrind's run binds
# lazily, and so the trace "oracle" must have.
arc_oracle() {
	local prog=$1
	shift
	command -v valgrind >/dev/null || skip "valgrind is not installed"
	LD_BIND_NOW=${ARC_ORACLE_BIND_NOW-1} valgrind --tool=callgrind --separate-recs=1 --dump-instr=no \
		--callgrind-out-file="$TMP/vg.out" "$prog" >/dev/null 2>"$TMP/vg.err" ||
		{ cat "$TMP/vg.err"; fail "valgrind $prog"; }
	arc_annotate oracle
	python3 "$ROOT/tests/e2e/arc-oracle.py" "$TMP/vg.out" "$TMP/annotate.prof" "$@" ||
		fail "post and callgrind differ"
}
