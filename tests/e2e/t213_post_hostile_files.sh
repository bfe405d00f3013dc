#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post on hostile files, as a user or an attacker would leave them where
# header, tasks or a steps file should be: a FIFO (every report hung in
# open), a symbolic link to a FIFO, to a character device, a socket, a
# directory, a file it may not read, a 3 GiB sparse file (post allocated
# its size) and a header over 64 MiB.  Each report ends at once (under
# timeout) with exactly one line on stderr naming the file, exit 1, and
# leaves the file as it was.  Then the shape of the messages: 8 damaged
# streams are one line (-v lists them), --force exits 0 with one warning
# for every report (dump and info too), damage that passes the checksums
# is one line; and dump's CHECK lines from a running CRC (ok, then
# MISMATCH after a flipped byte).
. "$(dirname "$0")/lib.sh"
[ -x "$PROGS/mktrace" ] || skip "$PROGS/mktrace not built (make progs)"
[ -x "$POST" ] || skip "post not built (make all)"
command -v python3 >/dev/null || skip "python3 is not installed (makes a socket)"

"$PROGS/mktrace" good --shared --steps 1000 >/dev/null || fail "mktrace"
mkfifo fifo || fail "mkfifo"

# one_line WHAT REGEX CMD...: CMD ends within 10 s, exit 1, one line on stderr matching REGEX
one_line() {
	local what=$1 re=$2
	shift 2
	timeout 10 "$@" >out 2>err
	rc=$?
	[ $rc = 124 ] && fail "$what: still running after 10 s (a hang)"
	[ $rc = 1 ] || fail "$what: exit status $rc, expected 1 ($(cat err))"
	[ "$(wc -l <err)" = 1 ] || fail "$what: expected one line on stderr, got: $(cat err)"
	grep -Eq "$re" err || fail "$what: '$(cat err)' does not match '$re'"
}

# hostile NAME KIND: a copy of the trace with NAME made KIND
hostile() {
	local name=$1 kind=$2
	rm -rf d && cp -r good d || fail "cp"
	case $kind in
	fifo) rm d/"$name" && mkfifo d/"$name" ;;
	link-fifo) rm d/"$name" && ln -s "$TMP/fifo" d/"$name" ;;
	link-device) rm d/"$name" && ln -s /dev/zero d/"$name" ;;
	socket) rm d/"$name" && python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])' d/"$name" ;;
	directory) rm d/"$name" && mkdir d/"$name" ;;
	sparse) truncate -s 3G d/"$name" ;;
	esac || fail "making $name $kind"
}

declare -A why=(
	[fifo]='not a regular file \(a FIFO\)'
	[link-fifo]='not a regular file \(a symbolic link to a FIFO\)'
	[link-device]='not a regular file \(a symbolic link to a character device\)'
	[socket]='not a regular file \(a socket\)'
	[directory]='not a regular file \(a directory\)'
	[sparse]='a sparse file \(a hole at byte [0-9]+ of 3221225472\): not written by a recorder'
)
for name in header tasks steps.t1000; do
	for kind in fifo link-fifo link-device socket directory sparse; do
		hostile "$name" "$kind"
		before=$(stat -c '%F %s %b' d/"$name")
		for report in info counts arc dump "dump $name" "--force counts"; do
			# no allocation of the sparse file's size: 2 GiB of address space is plenty
			# shellcheck disable=SC2086 # the report's words
			one_line "$name $kind: $report" "^post: error: d/$name: ${why[$kind]}$" \
				bash -c 'ulimit -v 2097152; exec "$@"' - "$POST" -i d $report
			[ "$report" = counts ] && [ -s out ] && fail "$name $kind: a report: $(head -2 out)"
		done
		expect_eq "$name $kind: the file after" "$before" "$(stat -c '%F %s %b' d/"$name")"
	done
done
[ -p fifo ] || fail "the FIFO is gone"

# a header over 64 MiB, written whole (no holes)
rm -rf d && cp -r good d && head -c $((65 << 20)) /dev/zero >>d/header || fail "a large header"
one_line "a 65 MiB header" '^post: error: d/header: [0-9]+ bytes: larger than a header file can be \(64 MiB\)$' \
	bash -c 'ulimit -v 2097152; exec "$@"' - "$POST" -i d counts

# a file post may not read (as another user: root reads everything)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	chmod 755 "$TMP"
	for name in header tasks steps.t1000; do
		rm -rf d && cp -r good d && chmod 000 d/"$name" || fail "chmod"
		one_line "$name unreadable" "^post: error: cannot open d/$name: Permission denied$" \
			setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups "$POST" -i d counts
	done
else
	echo "unreadable files: not tried (needs root, setpriv and a user nobody)"
fi

# Eight damaged streams: one line, the same whatever the number of threads; -v lists them.
"$PROGS/mktrace" many --threads 8 --steps 8000 >/dev/null || fail "mktrace --threads 8"
for f in many/steps.t*; do
	printf '\xff' | dd of="$f" bs=1 seek=40 conv=notrunc status=none
done
re='^post: error: many/steps\.t1000: checksum mismatch: corrupt data in bytes 32-[0-9]+; 7 more step streams are damaged, -v lists them \(--force reads each up to there\)$'
for threads in 1 2 4; do
	one_line "8 damaged streams, $threads threads" "$re" "$POST" -i many --threads $threads counts
done
one_line "8 damaged streams: dump" \
	'^post: error: many/steps\.t1000: checksum mismatch: corrupt data in bytes 32-[0-9]+ \(--force reads up to there\)$' \
	"$POST" -i many dump
"$POST" -i many -v counts >/dev/null 2>err
expect_eq "-v lists the damaged streams" 8 "$(grep -Ec '^post: debug: .*many/steps\.t100[0-7]: checksum mismatch' err)"
one_line "8 damaged streams: info" '^post: error: many: 8 damaged step streams \(see above; --force reads up to the damage\)$' \
	"$POST" -i many info
for report in counts arc tree dump info "export --format folded -o -"; do
	# shellcheck disable=SC2086 # the report's words
	timeout 10 "$POST" -i many --force $report >out 2>err || fail "--force $report: exit $?: $(cat err)"
	[ "$(wc -l <err)" = 1 ] || fail "--force $report: expected one warning, got: $(cat err)"
	grep -q '^post: warning: many.*8 damaged\|^post: warning: many/steps.t1000: .*; 7 more step streams are damaged, -v lists them; reading each up to there$' err ||
		fail "--force $report: $(cat err)"
done

# --force dump of a damaged tasks file: a warning, the dump up to there, exit 0
rm -rf cut && cp -r good cut && truncate -s 100 cut/tasks
"$POST" -i cut --force dump >out 2>err || fail "--force dump of a cut tasks file: exit $?: $(cat err)"
expect_eq "--force dump, cut tasks: stderr" \
	"post: warning: cut/tasks: truncated record at byte 80; reading up to there" "$(cat err)"
grep -q '^# truncated record at byte 80: the rest is not dumped$' out || fail "dump does not say where it stops"
grep -q '^# cut/steps.t1000$' out || fail "--force dump stopped at the tasks file"

# Damage that passes the checksums (a step inserted, CRCs redone, in a
# recording long enough for the shifted addresses to be taken as jumps):
# the error alone, not the error and then the 'taken as jumps' warning.
if [ -x "$PROGS/arc_qsort" ] && "$PITRACE" record -o q -- "$PROGS/arc_qsort" >/dev/null 2>&1; then
	stream=$(cd q && ls steps.t*)
	python3 "$ROOT/tests/e2e/trace_edit.py" q insert-step "$stream" 6 crc || fail "trace_edit.py"
	for report in counts arc tree; do
		one_line "a step inserted, CRCs redone: $report" \
			"^post: error: q/$stream: END at byte [0-9]+ counts [0-9]+ steps, the stream holds [0-9]+ \(--force reads up to there\)$" \
			"$POST" -i q $report
	done
	"$POST" -i q --force arc >/dev/null 2>err || fail "--force arc: exit $?"
	grep -q 'taken as jumps: the trace looks damaged$' err || fail "--force arc: no 'looks damaged': $(cat err)"
else
	echo "damage that passes the checksums: not tried (no arc_qsort recording)"
fi

# dump's CHECK lines (a running CRC): all ok, then MISMATCH from a flipped byte on
"$PROGS/mktrace" tasks --steps 100 --comms 2000 >/dev/null || fail "mktrace --comms"
"$POST" -i tasks dump tasks >out 2>err || fail "dump tasks: $(cat err)"
expect_eq "dump: CHECK lines ok" "2003 0" "$(grep -c 'CHECK.*(ok)$' out) $(grep -c MISMATCH out)"
size=$(stat -c %s tasks/tasks)
off=$((size / 2))
b=$(od -An -tu1 -j $off -N1 tasks/tasks | tr -d ' ')
printf "\\$(printf '%03o' $((b ^ 0x01)))" | dd of=tasks/tasks bs=1 seek=$off conv=notrunc status=none
"$POST" -i tasks dump tasks >out 2>err || fail "dump tasks, a byte flipped: $(cat err)"
ok=$(grep -c 'CHECK.*(ok)$' out)
bad=$(grep -c 'CHECK.*(MISMATCH)$' out)
[ $((ok + bad)) = 2003 ] && [ "$ok" -gt 900 ] && [ "$bad" -gt 900 ] ||
	fail "dump after a flipped byte: $ok CHECK ok, $bad MISMATCH"
last_ok=$(grep -n 'CHECK.*(ok)$' out | tail -n 1 | cut -d: -f1)
first_bad=$(grep -n 'MISMATCH' out | head -n 1 | cut -d: -f1)
[ "$last_ok" -lt "$first_bad" ] || fail "an ok CHECK after a MISMATCH"
echo PASS
