# SPDX-License-Identifier: GPL-2.0
# case-timeout: 1500
# The post benchmark's real traces, guest half (tests/vm/bench.sh): driver
# sessions of tests/progs/bench_calls (4 threads on both vCPUs, per-CPU
# streams, zstd), each of PT_BENCH_POST_ITERS iterations per thread
# (default "475 4750": about 10M and 100M steps), archived with pitrace
# archive and sent to the host, where b20_post_trace.host.sh times every
# report on them.
. /pt/cases/lib.inc
k=0
for iters in ${PT_BENCH_POST_ITERS:-475 4750}; do
	k=$((k + 1))
	rm -rf t t.tar.zst export.tar
	pitrace record --backend driver -z -o t -- "$PT_PROGS/bench_calls" "$iters" >rec.out 2>&1
	check_eq bench-post-record-$k "exit status of pitrace record --backend driver" 0 $?
	pitrace archive t >archive.out 2>&1
	check_eq bench-post-archive-$k "exit status of pitrace archive" 0 $?
	echo "$iters" >t.iters
	tar cf export.tar t t.tar.zst t.iters
	echo "INFO bench: post's trace $k: $(post -i t info | awk '$1 == "steps:" { s = $2 }
		$1 == "streams:" { n = $2 } END { print s " steps in " n " streams" }'),"\
		"$(du -k export.tar | cut -f1) KiB to export"
	export_file b20-post-trace-$k.tar export.tar
done
