#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A trace read where its files are not: a stripped program (its debuginfo by
# build-id under a debug directory) and a library of its own, both gone
# after the recording.  pitrace archive collects them by build-id; --unpack
# (or tar) puts them in a build-id cache, and post's reports equal those
# made before the files went away.  Also: post --symfs; a file replaced by
# another build is refused with one warning and read from the cache; bad
# input to archive and --unpack.
. "$(dirname "$0")/lib.sh"
"$PITRACE" record -o probe true >/dev/null 2>&1 || skip "pitrace record cannot trace here"
command -v tar >/dev/null && command -v zstd >/dev/null || skip "tar or zstd is not installed"

mkdir -p src inst dbg
cat >src/mine.c <<'EOF'
int mine_square(int x)
{
	return x * x;
}
EOF
cat >src/prog.c <<'EOF'
int mine_square(int x);

static int sum_squares(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += mine_square(i);
	return s;
}

int main(void)
{
	return sum_squares(100) == 328350 ? 0 : 1;
}
EOF
cc -g -O0 -shared -fPIC -o inst/libmine.so src/mine.c || fail "cc libmine.so"
cc -g -O0 -o prog.full src/prog.c -Linst -lmine -Wl,-rpath,"$TMP/inst" || fail "cc prog"
bid=$(readelf -n prog.full | sed -n 's/.*Build ID: *//p')
mkdir -p "dbg/.build-id/${bid:0:2}"
objcopy --only-keep-debug prog.full "dbg/.build-id/${bid:0:2}/${bid:2}.debug"
strip --strip-all -o inst/prog prog.full
"$PITRACE" record -o tr inst/prog >/dev/null 2>&1 || fail "record inst/prog"

# reports TRACE [POST OPTIONS]: the reports compared, one file
reports() {
	local t=$1
	shift
	{
		"$POST" -i "$t" "$@" counts --by symbol --no-pager
		"$POST" -i "$t" "$@" counts --by line --no-pager
		"$POST" -i "$t" "$@" profile --no-pager
	} 2>&1
}
reports tr --debug-dir dbg >want
grep -q ' sum_squares$' want && grep -q ' mine_square$' want && grep -q 'prog.c:8' want ||
	fail "the report has not the program's functions and lines: $(grep -v '^#' want | head)"

# Archive, while the files are there.
"$PITRACE" archive --debug-dir dbg tr >archive.out 2>archive.err || fail "archive: $(cat archive.err)"
[ -s archive.err ] && fail "archive said on stderr (not a terminal): $(cat archive.err)"
grep -q "^tr.tar.zst: .* files by build-id" archive.out || fail "archive's summary: $(cat archive.out)"
grep -q "pitrace archive --unpack tr.tar.zst" archive.out || fail "archive does not say how to unpack"
tar -tf tr.tar.zst >listing || fail "tar cannot read the archive"
for name in ".build-id/${bid:0:2}/${bid:2}" ".build-id/${bid:0:2}/${bid:2}.debug"; do
	grep -qxF "$name" listing || fail "$name is not in the archive: $(cat listing)"
done
lib_bid=$(readelf -n inst/libmine.so | sed -n 's/.*Build ID: *//p')
grep -qxF ".build-id/${lib_bid:0:2}/${lib_bid:2}" listing || fail "libmine.so is not in the archive"
grep -v '^\.build-id/[0-9a-f][0-9a-f]/[0-9a-f]*\(\.debug\)\?$' listing && fail "other names in the archive"

# A copy of every mapped file under a prefix, for --symfs, with the
# program's debuginfo in the prefix's /usr/lib/debug.
mkdir symfs
"$POST" -i tr dump | sed -n 's/.* MMAP .* path \(\/.*\)$/\1/p' | sort -u >mapped
grep -q "$TMP/inst/prog" mapped || fail "post dump shows no MMAP of the program"
while read -r f; do mkdir -p "symfs${f%/*}" && cp -L "$f" "symfs$f" || fail "cp $f"; done <mapped
mkdir -p symfs/usr/lib/debug
cp -a dbg/.build-id symfs/usr/lib/debug/

# The files go away: no names any more.
rm -rf inst dbg
reports tr >gone
grep -q ' sum_squares$' gone && fail "named with its files gone"

reports tr --symfs symfs >got.symfs
expect_same_file "post --symfs" want got.symfs

"$PITRACE" archive --unpack --buildid-dir cache tr.tar.zst >unpack.out 2>&1 || fail "unpack: $(cat unpack.out)"
grep -q "unpacked into cache" unpack.out || fail "unpack's summary: $(cat unpack.out)"
reports tr --buildid-dir cache >got.cache
expect_same_file "post --buildid-dir after pitrace archive --unpack" want got.cache

# The default cache: XDG_CACHE_HOME/pitrace/buildid (lib.sh points it here).
"$PITRACE" archive --unpack tr.tar.zst >/dev/null 2>&1 || fail "unpack into the default cache"
[ -d "$XDG_CACHE_HOME/pitrace/buildid/.build-id" ] || fail "not unpacked into the default cache"
reports tr >got.default
expect_same_file "post after unpacking into the default cache" want got.default
rm -rf "$XDG_CACHE_HOME/pitrace"

# Unpacked by tar, as the summary says.
mkdir tarcache
tar -C tarcache -xf tr.tar.zst || fail "tar -xf"
reports tr --buildid-dir tarcache >got.tar
expect_same_file "post --buildid-dir after tar -xf" want got.tar

# Another build at the traced path: one warning, then the traced build from the cache.
mkdir inst
cc -O2 -o inst/prog src/prog.c -Lsymfs"$TMP"/inst -lmine || fail "cc another build"
cp "symfs$TMP/inst/libmine.so" inst/
"$POST" -i tr --buildid-dir cache counts >/dev/null 2>err
n=$(grep -c "prog changed since it was traced (build-id differs); using .*cache/.build-id/" err)
expect_eq "warnings about the replaced program (one run)" "1 1" "$n $(wc -l <err)"
reports tr --buildid-dir cache >got.replaced
grep -v "changed since it was traced" got.replaced >got.replaced.reports
expect_same_file "post with the program replaced" want got.replaced.reports

# Bad input: one line, and the exit status.
run_expect_status "archive of no trace" 1 "$PITRACE" archive nosuch >/dev/null 2>err
expect_eq "archive of no trace: lines" 1 "$(wc -l <err)"
run_expect_status "unknown option" 2 "$PITRACE" archive --nosuch tr 2>err
grep -q "unknown option '--nosuch'" err || fail "unknown option: $(cat err)"
run_expect_status "two traces" 2 "$PITRACE" archive tr tr 2>/dev/null
run_expect_status "--unpack with --output" 2 "$PITRACE" archive --unpack -o x tr.tar.zst 2>/dev/null
cp tr.tar.zst keep.tar.zst
run_expect_status "archive into a missing directory" 1 "$PITRACE" archive -o nodir/x.tar.zst tr \
	>/dev/null 2>err
grep -q "nodir/x.tar.zst" err || fail "no reason for the failed archive: $(cat err)"
echo junk >junk.tar.zst
run_expect_status "unpack of no archive" 1 "$PITRACE" archive --unpack --buildid-dir c2 junk.tar.zst \
	2>err
expect_eq "unpack of no archive: lines" 1 "$(wc -l <err)"
mkdir -p evil/.build-id/aa
echo x >evil/.build-id/aa/bbbb
echo x >evil/outside
tar -C evil -cf evil.tar .build-id/aa/bbbb ../evil/outside 2>/dev/null ||
	tar -C evil -cf evil.tar .build-id/aa/bbbb outside
run_expect_status "unpack of a foreign archive" 1 "$PITRACE" archive --unpack --buildid-dir c3 evil.tar \
	2>err
grep -q "not a pitrace archive" err || fail "foreign archive: $(cat err)"
[ -e c3/outside ] || [ -e outside ] && fail "a foreign entry was unpacked"

# Progress on a terminal only (above, stderr was a file and stayed empty).
if command -v script >/dev/null; then
	script -qec "$PITRACE archive --buildid-dir cache -o tty.tar.zst tr" /dev/null >tty.out ||
		fail "archive on a terminal: $(cat tty.out)"
	grep -q "archive: writing" tty.out || fail "no progress on a terminal: $(tr '\r' '\n' <tty.out)"
fi
echo "PASS"
