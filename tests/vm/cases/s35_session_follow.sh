# SPDX-License-Identifier: GPL-2.0
# case-timeout: 480
# Following a driver recording (libpitrace's PTR_OPEN_FOLLOW, post script
# --follow's reader; tests/progs/sess_follow): a library dlopen()ed after the
# follower opened the trace resolves by name, and the follower's events, in
# order, and per-symbol steps are the finished trace's.
P=$PT_PROGS
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
[ -x "$P/sess_follow" ] ||
	{ echo "SKIP sess-follow: no sess_follow (libpitrace not built)"; exit 0; }

# by_symbol OUT: "SYMBOL COUNT" lines of a sess_follow output, summed by name
by_symbol() { awk '$1 == "steps" { n[$2] += $3 } END { for (s in n) print s, n[s] }' "$1" | sort; }
# post_symbols DIR: the same from post counts --by symbol
post_symbols() {
	post -i "$1" counts --by symbol |
		awk '!/^#/ && NF >= 4 { n[$NF] += $1 } END { for (s in n) print s, n[s] }' | sort
}
# wait_file FILE PID: until FILE has something (the recorder's or follower's
# progress) while PID runs, up to 120 s
wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 1200 ] && kill -0 "$2" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$1" ]
}
# compare NAME DIR: the follower's output DIR.follow against a plain pass and post
compare() {
	if ! sess_follow "$2" >"$2.final" 2>"$2.final.err"; then
		fail "$1-plain" "$(cat "$2.final.err")"
		return
	fi
	a=$(grep -E '^(events|hash) ' "$2.follow" | tr '\n' ' ')
	b=$(grep -E '^(events|hash) ' "$2.final" | tr '\n' ' ')
	[ -n "$a" ] && [ "$a" = "$b" ] && pass "$1-events" ||
		fail "$1-events" "followed: ${a:-none}, finished trace: $b"
	by_symbol "$2.follow" >"$2.sym.follow"
	post_symbols "$2" >"$2.sym.post"
	# A function "[module]" is code without a symbol, which post counts
	# names instruction by instruction ("module+0x..."): compared in sum.
	why=$(awk 'FNR == NR { f[$1] = $2; next } { p[$1] = $2 }
		END {
			for (n in f) {
				if (n ~ /^\[[^]]*\]$/) { fu += f[n]; continue }
				k++
				if (p[n] != f[n]) { print n ": followed " f[n] ", post " p[n] + 0; exit }
			}
			for (n in p)
				if (!(n in f)) {
					if (n !~ /\+0x[0-9a-f]+$/) { print n ": not followed"; exit }
					pu += p[n]
				}
			if (fu != pu) { print "no symbol: followed " fu ", post " pu; exit }
			if (k < 10) print "only " k " symbols"
		}' "$2.sym.follow" "$2.sym.post")
	if [ -s "$2.sym.post" ] && [ -z "$why" ]; then
		pass "$1-symbols"
	else
		echo "INFO $1: $why"
		diff "$2.sym.follow" "$2.sym.post" | head -n 20 | sed 's/^/INFO diff: /'
		fail "$1-symbols" "the follower's steps by symbol are not post counts --by symbol's"
	fi
	lag=$(sed -n 's/^lag //p' "$2.follow")
	[ -n "$lag" ] && echo "INFO $1: lag of followed steps, median and max ms: $lag"
}

# A library loaded after the follower opened the trace: pt_follow_dlopen
# blocks reading stdin (a fifo held open here) until told to go on.
mkfifo go
exec 3<>go
pitrace record -o dl -- "$P/pt_follow_dlopen" <go >dl.out 2>&1 &
rec=$!
export LD_LIBRARY_PATH=$PT_LIB
PATH=$P:$PATH
wait_file dl/header $rec || fail dlopen-record "no trace dl after 120 s: $(cat dl.out)"
sess_follow -f -o dl.open dl >dl.follow 2>dl.err &
fol=$!
if wait_file dl.open $fol; then
	pass dlopen-follower-opened
else
	fail dlopen-follower-opened "the follower did not open the trace in 120 s: $(cat dl.err)"
fi
echo go >&3
exec 3>&-
wait $rec
rc=$?
wait $fol || fail dlopen-follow "$(cat dl.err)"
if [ $rc = 77 ]; then
	echo "SKIP dlopen: no libz.so.1 to dlopen in the guest"
elif [ $rc != 0 ]; then
	cat dl.out
	fail dlopen-record "pitrace record exited $rc"
else
	n=$(awk '$1 == "steps" && $2 == "zlibVersion" { print $3 }' dl.follow)
	[ "${n:-0}" -gt 0 ] && pass dlopen-resolves ||
		fail dlopen-resolves "the follower has no steps in zlibVersion"
	compare dlopen dl
fi

# Four threads on the guest's CPUs, their per-CPU streams merged by time.
pitrace record -o thr -- "$P/sess_threads" >thr.out 2>&1 &
rec=$!
wait_file thr/header $rec || fail threads-record "no trace thr after 120 s: $(cat thr.out)"
sess_follow -f -o thr.open thr >thr.follow 2>thr.err &
fol=$!
wait $rec || fail threads-record "$(cat thr.out)"
wait $fol || fail threads-follow "$(cat thr.err)"
compare threads thr
exit 0
