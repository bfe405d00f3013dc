#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post on a damaged or foreign header file: one-line error naming the file, exit 1.
. "$(dirname "$0")/lib.sh"
[ -x "$PROGS/mktrace" ] || skip "$PROGS/mktrace not built (make progs)"

expect_error() {
	local what=$1 want=$2 re=$3
	shift 3
	"$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	[ "$rc" = "$want" ] || fail "$what: exit status $rc, expected $want ($(cat "$TMP/err"))"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "$what: expected one line on stderr, got: $(cat "$TMP/err")"
	grep -Eq "$re" "$TMP/err" || fail "$what: stderr '$(cat "$TMP/err")' does not match '$re'"
}

"$PROGS/mktrace" good --steps 100 || fail "mktrace"
"$POST" -i good counts >/dev/null || fail "the undamaged trace must read"

cp -r good cut && truncate -s 10 cut/header
expect_error "header cut inside the file header" 1 \
	'^post: error: cut/header: truncated file header \(10 of 32 bytes\)$' "$POST" -i cut info

cp -r good cut2 && truncate -s 40 cut2/header
expect_error "header cut inside a record" 1 \
	'^post: error: cut2/header: truncated or corrupt record at byte 32 \(--force reads it as it is\)$' \
	"$POST" -i cut2 counts

cp -r good magic && printf 'NOTATRACE' | dd of=magic/header conv=notrunc status=none
expect_error "bad magic" 1 '^post: error: magic/header: bad magic: not a pitrace file$' "$POST" -i magic info

cp -r good endian && printf '\002' | dd of=endian/header bs=1 seek=8 conv=notrunc status=none
expect_error "big-endian writer" 1 '^post: error: endian/header: written in the other byte order' \
	"$POST" -i endian counts

cp -r good notasks && rm notasks/tasks
expect_error "tasks file missing" 1 '^post: error: notasks/tasks: missing$' "$POST" -i notasks counts

cp -r good cuttasks && truncate -s -3 cuttasks/tasks
expect_error "tasks file cut in its last record" 1 \
	'^post: error: cuttasks/tasks: truncated record at byte [0-9]+ \(--force reads up to there\)$' \
	"$POST" -i cuttasks counts
echo PASS
