# SPDX-License-Identifier: GPL-2.0
# Shared helpers for end-to-end tests; source it first thing.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${PT_BIN:-$ROOT/bin}
PITRACE=$BIN/pitrace
POST=$BIN/post
PROGS=${PT_PROGS:-$ROOT/build/progs}
EXPECTED=$ROOT/tests/e2e/expected
TMP=$(mktemp -d /tmp/pitrace-e2e.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
# Symbols come from the test's own files: not the user's build-id cache,
# no debuginfod server (t405 starts its own).
export XDG_CACHE_HOME=$TMP/.cache
unset DEBUGINFOD_URLS

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}

# expect_same_file WHAT EXPECTED_FILE ACTUAL_FILE: exact match, diff on failure
expect_same_file() {
	diff -u "$2" "$3" >"$TMP/diff.out" || { cat "$TMP/diff.out"; fail "$1 differs from $2"; }
}

# run_expect_status WHAT STATUS CMD...: CMD must exit with STATUS
run_expect_status() {
	local what=$1 want=$2
	shift 2
	"$@"
	local rc=$?
	[ "$rc" = "$want" ] || fail "$what: exit status $rc, expected $want"
}
