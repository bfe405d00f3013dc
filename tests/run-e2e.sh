#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the end-to-end tests (tests/e2e/t*.sh): each exits 0 (pass), 77 (skip,
# having said why) or anything else (fail).  `tests/run-e2e.sh PATTERN` runs
# the matching ones.
cd "$(dirname "$0")/.." || exit 1
pass=0 fail=0 skip=0 failed=()
for t in tests/e2e/t*.sh; do
	name=$(basename "$t" .sh)
	[ -n "${1:-}" ] && [[ "$name" != *"$1"* ]] && continue
	log=$(mktemp)
	t0=$SECONDS
	timeout 600 bash "$t" >"$log" 2>&1
	rc=$?
	case $rc in
	0) echo "PASS $name ($((SECONDS - t0)) s)"; pass=$((pass + 1)) ;;
	77) echo "SKIP $name: $(grep -m1 '^SKIP' "$log" | sed 's/^SKIP:* *//')"; skip=$((skip + 1)) ;;
	*) echo "FAIL $name (exit $rc)"; sed 's/^/    /' "$log" | tail -n 40; fail=$((fail + 1)); failed+=("$name") ;;
	esac
	rm -f "$log"
done
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
