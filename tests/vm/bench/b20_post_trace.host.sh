#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# case-timeout: 900
# The post benchmark's real traces, host half (see b20_post_trace.sh): each
# of the guest's driver traces of bench_calls read here through its
# archive; iteration() is called 4 times the iterations the guest ran
# (known by construction), then scripts/bench_post.sh --trace times every
# report on it.  PT_BENCH_POST_KEEP=DIR keeps the guest's exports there.
export XDG_CACHE_HOME=$PWD/xdg	# not the user's build-id cache
unset DEBUGINFOD_URLS
found=0
for f in "$PT_EXPORT"/b20-post-trace-*.tar; do
	[ -s "$f" ] || continue
	found=$((found + 1))
	[ -n "${PT_BENCH_POST_KEEP:-}" ] && mkdir -p "$PT_BENCH_POST_KEEP" && cp "$f" "$PT_BENCH_POST_KEEP/"
	rm -rf t t.tar.zst t.iters cache
	tar xf "$f" || { echo "FAIL bench-post-export: $f does not unpack"; continue; }
	"$PT_HOST_BIN/pitrace" archive --unpack --buildid-dir cache t.tar.zst >unpack.out 2>&1 ||
		{ echo "FAIL bench-post-unpack: $(tail -n 1 unpack.out)"; continue; }
	iters=$(cat t.iters)
	calls=$("$PT_HOST_BIN/post" -i t --buildid-dir cache profile --no-pager |
		awk '$NF == "[bench_calls]" && $(NF - 1) == "iteration" { print $1 }')
	if [ "$calls" = $((4 * iters)) ]; then
		echo "PASS bench-post-known-calls-$found"
	else
		echo "FAIL bench-post-known-calls-$found: iteration() called ${calls:-no} times," \
			"not $((4 * iters))"
	fi
	PT_BIN=$PT_HOST_BIN "$PT_ROOT/scripts/bench_post.sh" --trace "$PWD/t" \
		--buildid-dir "$PWD/cache" | sed 's/^/INFO bench: /'
done
[ $found -gt 0 ] || echo "FAIL bench-post-export: nothing came out of the guest"
