#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debuginfod: elfutils' server, started here on 127.0.0.1, serves the debug
# file of a program that is recorded stripped.  With DEBUGINFOD_URLS, post
# names its functions and lines as in the unstripped program's report; then
# the program itself is gone and comes from the server too (executable by
# build-id).  Downloads land in debuginfod's cache (DEBUGINFOD_CACHE_PATH)
# and are used from there once the server is gone; progress shows on a
# terminal only.
. "$(dirname "$0")/lib.sh"
command -v debuginfod >/dev/null || skip "debuginfod is not installed (make deps)"
command -v curl >/dev/null || skip "curl is not installed"
"$PITRACE" record -o probe true >/dev/null 2>&1 || skip "pitrace record cannot trace here"

# Same path lengths, so that both recordings start alike.
mkdir -p a b srv/debug srv/exe
cc -g -O0 -fno-inline -Wl,--build-id -o a/prog "$ROOT/tests/progs/arc_recursion.c" ||
	fail "cc arc_recursion.c"
objcopy --only-keep-debug a/prog srv/debug/prog.debug || fail "objcopy --only-keep-debug"
strip --strip-all -o b/prog a/prog || fail "strip"
cp b/prog srv/exe/prog
bid=$(readelf -n b/prog | sed -n 's/.*Build ID: *//p')
[ -n "$bid" ] || fail "no build-id in the program"
"$PITRACE" record -o full a/prog >/dev/null 2>&1 || fail "record a/prog"
"$PITRACE" record -o strp b/prog >/dev/null 2>&1 || fail "record b/prog"

# report TRACE KEY: the program's rows (count, module, name), no header
report() {
	"$POST" -i "$1" counts --by "$2" --module prog --no-pager | awk '!/^#/ { print $1, $3, $4 }'
}
report full symbol >want.symbol || fail "post on the unstripped program's trace"
report full line >want.line
grep -q ' fib$' want.symbol || fail "the unstripped program's report has no fib: $(cat want.symbol)"
grep -q 'arc_recursion.c:' want.line || fail "the unstripped program's report has no lines"
unset DEBUGINFOD_URLS
report strp symbol >none.symbol
grep -q ' fib$' none.symbol && fail "the stripped program is named without a server"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
debuginfod -F -p "$port" -d "$TMP/index.sqlite" -t 0 -g 0 "$TMP/srv" >server.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$TMP"' EXIT
url=http://127.0.0.1:$port
# Until it has scanned srv/ (it serves nothing before): its progress, not a time.
for _ in $(seq 1200); do
	curl -sf -o /dev/null "$url/buildid/$bid/debuginfo" &&
		curl -sf -o /dev/null "$url/buildid/$bid/executable" && break
	kill -0 $server 2>/dev/null || { cat server.log; fail "debuginfod exited"; }
	sleep 0.1
done
curl -sf -o /dev/null "$url/buildid/$bid/debuginfo" || fail "debuginfod never served the debug file"

export DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$TMP/dcache
start=$(date +%s.%N)
report strp symbol >got.symbol 2>got.err
expect_same_file "stripped program through debuginfod, by symbol" want.symbol got.symbol
report strp line >got.line
expect_same_file "stripped program through debuginfod, by line" want.line got.line
[ -s "$TMP/dcache/$bid/debuginfo" ] || fail "the debug file is not in debuginfod's cache"
grep -q debuginfod got.err && fail "progress on stderr that is not a terminal: $(cat got.err)"

# The program gone from its path: its file comes from the server as well.
mv b/prog b/prog.gone
report strp symbol >gone.symbol
expect_same_file "program and debuginfo through debuginfod" want.symbol gone.symbol
[ -s "$TMP/dcache/$bid/executable" ] || fail "the program is not in debuginfod's cache"
"$POST" -i strp flow --module prog --no-pager | grep -q 'fib' ||
	fail "flow of the downloaded program has no fib"
echo "debuginfod reports: $(awk -v a="$start" -v b="$(date +%s.%N)" "BEGIN { printf \"%.1f\", b - a }") s"

# On a terminal, a download says what it fetches, from where.
if command -v script >/dev/null && ldd "$POST" | grep -q libdebuginfod; then
	DEBUGINFOD_CACHE_PATH=$TMP/dcache2 script -qec \
		"$POST -i strp counts --module prog --no-pager" /dev/null >tty.out ||
		fail "post on a terminal"
	grep -q "debuginfod: prog.*from $url" tty.out ||
		fail "no download progress on a terminal: $(tr '\r' '\n' <tty.out | head -5)"
fi

# From the cache once the server is gone.
kill $server
wait $server 2>/dev/null
report strp symbol >cached.symbol
expect_same_file "from debuginfod's cache" want.symbol cached.symbol
echo "PASS"
