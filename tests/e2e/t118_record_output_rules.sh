#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where a trace goes (docs/record.md): what a user, or another user, can
# put at -o never loses a file that is not pitrace's.  A symlinked -o, a
# directory that only holds a file called header, a DIR.old with the
# user's notes in it: refused in one line before anything runs, left as
# they were, nothing staged left behind.  As root in a shared directory,
# another user's directory or a link planted while recording never makes
# pitrace write through it.  Two recorders to one name: the second is
# refused, naming the first's pid.  Empty and too long names, a file size
# limit, a newline in the name, and who can read a trace.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_exit3 pt_cat

# no_staging: nothing named *.new-* is left in the current directory
no_staging() {
	ls -d ./*.new-* 2>/dev/null && fail "$1: a staging directory was left behind"
	return 0
}

# tree_sum DIR: every file under DIR with its contents' checksum
tree_sum() { (cd "$1" && find . -type f -exec md5sum {} + | sort); }

# refused WHAT STDERR_PATTERN CMD...: exit 1 and one line on stderr matching
refused() {
	local what=$1 pattern=$2
	shift 2
	"$@" >out 2>err
	local rc=$?
	expect_eq "$what: exit status" 1 "$rc"
	expect_eq "$what: lines on stderr" 1 "$(wc -l <err)"
	grep -qE "$pattern" err || fail "$what: stderr '$(cat err)' does not match '$pattern'"
	no_staging "$what"
}

# 1. A symlinked -o pointing at a trace the user annotated: refused, twice.
mkdir big
"$PITRACE" record -o big/run1 -- "$PROGS/pt_exit3" 2>/dev/null
echo "my notes" >big/run1/NOTES.txt
ln -s big/run1 lnk.data
before=$(tree_sum big)
for i in 1 2; do
	refused "symlinked -o ($i)" "lnk.data is a symbolic link" \
		"$PITRACE" record -o lnk.data -- "$PROGS/pt_exit3"
done
expect_eq "the link's target after two refused recordings" "$before" "$(tree_sum big)"
[ -L lnk.data ] || fail "the link lnk.data was replaced"

# 2. A user directory holding a file named header: not a trace, refused.
mkdir -p notes/sub
echo "not a header" >notes/header
echo "important" >notes/important.txt
echo "deep" >notes/sub/file
before=$(tree_sum notes)
for i in 1 2; do
	refused "a directory with a file called header ($i)" "notes exists and is not a pitrace trace" \
		"$PITRACE" record -o notes -- "$PROGS/pt_exit3"
done
expect_eq "the user's directory" "$before" "$(tree_sum notes)"

# 3. Rotation: a DIR.old holding the user's file is never emptied.
for i in 1 2; do
	"$PITRACE" record -o rot.data -- "$PROGS/pt_exit3" 2>/dev/null
	expect_eq "recording $i to rot.data" 3 "$?"
done
echo "keep me" >rot.data.old/NOTES.txt
old_before=$(tree_sum rot.data.old)
new_before=$(tree_sum rot.data)
refused "a DIR.old holding the user's file" "rot.data.old cannot be replaced: it holds NOTES.txt" \
	"$PITRACE" record -o rot.data -- "$PROGS/pt_exit3"
expect_eq "rot.data.old" "$old_before" "$(tree_sum rot.data.old)"
expect_eq "rot.data" "$new_before" "$(tree_sum rot.data)"
rm rot.data.old/NOTES.txt
"$PITRACE" record -o rot.data -- "$PROGS/pt_exit3" 2>/dev/null
expect_eq "rotation once the note is gone" "$new_before" "$(tree_sum rot.data.old)"
"$POST" -i rot.data info >/dev/null || fail "the rotated trace does not read"

# 4. Names: empty and too long are usage errors saying why; control bytes quoted.
run_expect_status "-o ''" 2 "$PITRACE" record -o "" -- "$PROGS/pt_exit3" 2>err
expect_eq "-o '': stderr" "pitrace: error: the trace's name is empty" "$(cat err)"
no_staging "-o ''"
[ -z "$(ls -A | grep -v -e '^big$' -e '^lnk.data$' -e '^notes$' -e '^rot.data' \
	-e '^out$' -e '^err$')" ] || fail "-o '' left something: $(ls -A)"
name245=$(printf 'n%.0s' $(seq 245))
run_expect_status "a 245-byte name" 2 "$PITRACE" record -o "$name245" -- "$PROGS/pt_exit3" 2>err
grep -q "the name is 245 bytes long; pitrace first writes the trace to NAME.new-XXXXXX" err ||
	fail "a 245-byte name: $(cat err)"
name300=$(printf 'm%.0s' $(seq 300))
run_expect_status "a 300-byte name" 2 "$PITRACE" record -o "$name300" -- "$PROGS/pt_exit3" 2>err
grep -q "the name is 300 bytes long, longer than the file system's limit of 255" err ||
	fail "a 300-byte name: $(cat err)"
name244=$(printf 'k%.0s' $(seq 244))
run_expect_status "a 244-byte name" 3 "$PITRACE" record -o "$name244" -- "$PROGS/pt_exit3" 2>/dev/null
"$PITRACE" record -o $'nl\nx\e[31m' -- "$PROGS/pt_exit3" 2>err
expect_eq "lines of the summary with a newline in the name" 1 "$(wc -l <err)"
grep -qF "trace in \$'nl\\nx\\e[31m'" err || fail "the name is not quoted: $(cat -v err)"
"$POST" -i $'nl\nx\e[31m' info >/dev/null || fail "the oddly named trace does not read"

# 5. A file size limit: one line naming the file and the limit, CMD not
# run (as with a full disk at the start), nothing left behind.
for blocks in 1 2 3; do
	(ulimit -f "$blocks"; exec "$PITRACE" record -o f.data -- "$PROGS/pt_cat" </dev/null) \
		>out 2>err
	rc=$?
	expect_eq "ulimit -f $blocks: exit status" 1 "$rc"
	expect_eq "ulimit -f $blocks: stderr" \
		"pitrace: error: cannot write f.data/header: File too large (the file size limit, ulimit -f, is $((blocks * 1024)) bytes)" \
		"$(cat err)"
	[ -e f.data ] && fail "ulimit -f $blocks left f.data"
	no_staging "ulimit -f $blocks"
done

# 6. Who can read a trace: its owner only, unless --shared.
"$PITRACE" record -o mine.data -- "$PROGS/pt_exit3" 2>/dev/null
expect_eq "a trace's modes" "700 600" "$(stat -c %a mine.data) $(stat -c %a mine.data/header)"
(umask 022; "$PITRACE" record --shared -o ours.data -- "$PROGS/pt_exit3" 2>/dev/null)
expect_eq "a --shared trace's modes" "755 644" \
	"$(stat -c %a ours.data) $(stat -c %a ours.data/header)"

# 7. One recorder a name: the second is refused with the first's pid; the
# first's trace is whole.  pt_cat waits on a FIFO meanwhile (no steps).
mkfifo in
"$PITRACE" record -o same.data -- "$PROGS/pt_cat" <in >cat.out 2>first.err &
first=$!
exec 3>in
for _ in $(seq 600); do [ -d same.data ] && break; sleep 0.1; done
[ -d same.data ] || fail "the first recording never started"
holder=$(cat same.data.lock)
refused "a second recorder to same.data" \
	"same.data is being written by another pitrace \\(pid $holder, holding same.data.lock\\)" \
	"$PITRACE" record -o same.data -- "$PROGS/pt_exit3"
echo hello >&3
exec 3>&-
wait "$first"
expect_eq "the first recording's status" 0 "$?"
expect_eq "the first recording's command" hello "$(cat cat.out)"
expect_eq "the first recording's steps" 12 "$(total_of same.data)"
[ -e same.data.old ] && fail "the refused recording made same.data.old"
[ -e same.data.lock ] && fail "the lock was left behind"

# 8. As root, another user's directories and links in a shared place.
command -v setpriv >/dev/null || skip "setpriv is not installed (cases 1-7 passed)"
[ "$(id -u)" = 0 ] || skip "needs root to act as two users (cases 1-7 passed)"
id nobody >/dev/null 2>&1 || skip "no user nobody (cases 1-7 passed)"
as_nobody() { setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups "$@"; }
chmod 755 "$TMP"
mkdir shared && chmod 1777 shared
echo "root's data" >victim && chmod 600 victim
victim_sum=$(md5sum <victim)
as_nobody mkdir shared/x.data && as_nobody chmod 777 shared/x.data ||
	fail "nobody cannot make its directory"
refused "another user's empty directory" "x.data is an empty directory that another user owns" \
	"$PITRACE" record -o shared/x.data -- "$PROGS/pt_exit3"
as_nobody ln -s "$TMP/victim" shared/x.data/header.tmp 2>/dev/null
refused "the same with a link planted in it" "x.data exists and is not a pitrace trace" \
	"$PITRACE" record -o shared/x.data -- "$PROGS/pt_exit3"
# A recording to a fresh name while nobody keeps planting links in
# whatever pitrace makes there: every attempt fails, the victim is intact.
"$PITRACE" record -o shared/y.data -- "$PROGS/pt_cat" <in >/dev/null 2>y.err &
rec=$!
exec 3>in
planted=0
for _ in $(seq 600); do
	for d in shared/y.data shared/y.data.new-*; do
		[ -d "$d" ] || continue
		as_nobody ln -s "$TMP/victim" "$d/header.tmp" 2>/dev/null && planted=1
		as_nobody ln -s "$TMP/victim" "$d/steps.t1" 2>/dev/null && planted=1
	done
	[ -d shared/y.data ] && break
	sleep 0.05
done
echo bye >&3
exec 3>&-
wait "$rec"
expect_eq "the recording in the shared directory" 0 "$?"
expect_eq "links another user could plant" 0 "$planted"
expect_eq "the victim" "$victim_sum" "$(md5sum <victim)"
expect_eq "the shared trace's steps" 12 "$(total_of shared/y.data)"
expect_eq "its owner and mode" "root 700" "$(stat -c '%U %a' shared/y.data)"
# A shared directory that is not sticky: refused before anything is made.
mkdir open && chmod 777 open
refused "a world-writable directory that is not sticky" "every user can write the directory" \
	"$PITRACE" record -o open/z.data -- "$PROGS/pt_exit3"
[ -z "$(ls -A open)" ] || fail "something was made in open/: $(ls -A open)"
echo PASS
