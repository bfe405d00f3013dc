#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post on a directory that does not exist, or is not a trace: one-line error, exit 1.
. "$(dirname "$0")/lib.sh"

# expect_error WHAT STATUS REGEX CMD...: exit STATUS, exactly one stderr line matching REGEX
expect_error() {
	local what=$1 want=$2 re=$3
	shift 3
	"$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	[ "$rc" = "$want" ] || fail "$what: exit status $rc, expected $want ($(cat "$TMP/err"))"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "$what: expected one line on stderr, got: $(cat "$TMP/err")"
	grep -Eq "$re" "$TMP/err" || fail "$what: stderr '$(cat "$TMP/err")' does not match '$re'"
}

for cmd in info dump counts; do
	expect_error "$cmd, missing dir" 1 '^post: error: nodir: no such trace directory$' \
		"$POST" -i nodir "$cmd"
done
expect_error "default pitrace.data missing" 1 '^post: error: pitrace.data: no such trace directory$' \
	"$POST" counts
mkdir empty
expect_error "empty directory" 1 '^post: error: empty: not a pitrace trace \(no header file\)$' \
	"$POST" -i empty info
mkdir notatrace && echo text >notatrace/notes
expect_error "a directory of other files" 1 \
	'^post: error: notatrace: not a pitrace trace \(no header file\)$' "$POST" -i notatrace info
touch notadir
expect_error "a file, not a directory" 1 '^post: error: notadir: not a trace directory$' \
	"$POST" -i notadir counts
echo PASS
