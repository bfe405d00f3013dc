#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the end-to-end tests (tests/e2e/t*.sh): each exits 0 (pass), 77 (skip,
# having said why) or anything else (fail).  `tests/run-e2e.sh PATTERN` runs
# the matching ones.
#
# PT_E2E_JOBS tests run at once (default: one per CPU); each test has its
# own directory and waits for progress, never for time.  A test whose file
# says "# e2e: serial" (it drives a terminal or a display, or kills at a
# chosen moment) runs alone, after the others.  Results are printed as the
# tests end, with each passing test's seconds.
cd "$(dirname "$0")/.." || exit 1
JOBS=${PT_E2E_JOBS:-$(nproc)}
OUT=$(mktemp -d /tmp/pitrace-e2e-run.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
pass=0 fail=0 skip=0 failed=() parallel=() serial=() pending=()

for t in tests/e2e/t*.sh; do
	name=$(basename "$t" .sh)
	if [ $# -gt 0 ]; then
		hit=
		for p in "$@"; do [[ "$name" == *"$p"* ]] && hit=1; done
		[ -n "$hit" ] || continue
	fi
	if grep -q '^# e2e: serial' "$t"; then serial+=("$t"); else parallel+=("$t"); fi
done

start() {	# start TEST: in the background, its log and "status seconds" in $OUT
	local name
	name=$(basename "$1" .sh)
	pending+=("$name")
	(t0=$SECONDS
	 timeout 600 bash "$1" >"$OUT/$name.log" 2>&1
	 echo "$? $((SECONDS - t0))" >"$OUT/$name.rc.tmp" && mv "$OUT/$name.rc.tmp" "$OUT/$name.rc") &
}

report() {	# report: print the tests that ended since the last call
	local name rc secs left=()
	for name in "${pending[@]}"; do
		if [ ! -e "$OUT/$name.rc" ]; then
			left+=("$name")
			continue
		fi
		read -r rc secs <"$OUT/$name.rc"
		case $rc in
		0) echo "PASS $name ($secs s)"; pass=$((pass + 1)) ;;
		77) echo "SKIP $name: $(grep -m1 '^SKIP' "$OUT/$name.log" | sed 's/^SKIP:* *//')"
		    skip=$((skip + 1)) ;;
		*) echo "FAIL $name (exit $rc)"; sed 's/^/    /' "$OUT/$name.log" | tail -n 40
		   fail=$((fail + 1)); failed+=("$name") ;;
		esac
	done
	pending=("${left[@]}")
}

for t in "${parallel[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n
		report
	done
	start "$t"
done
wait
report
for t in "${serial[@]}"; do
	start "$t"
	wait
	report
done
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
