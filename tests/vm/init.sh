#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# Guest /init for tests/vm/run.sh: run every case file around a fresh
# pitrace.ko, print results on the console, dump the kernel log, power off.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/pt/bin:/pt/tools
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
export PT_BIN=/pt/bin PT_PROGS=/pt/progs PT_LIB=/pt/lib PT_KO=/pt/pitrace.ko PT_TOOLS=/pt/tools
export PATH=$PATH:$PT_BIN:$PT_TOOLS LD_LIBRARY_PATH=$PT_LIB
[ -f /pt/env ] && . /pt/env	# PT_BENCH_* set on the host (tests/vm/run.sh)
echo "pitrace-vm: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"

loaded() { grep -q '^pitrace ' /proc/modules; }

for c in /pt/cases/*.sh; do
	[ -f "$c" ] || continue
	name=$(basename "$c" .sh)
	export PT_CASE=$name
	dir=/tmp/case.$name
	mkdir -p "$dir"
	# "# case-module: none": a case that must run with pitrace.ko never
	# loaded before it in this boot (tests/vm/tcg/c00_tpflip.sh).
	if grep -q '^# case-module: none$' "$c"; then
		loaded && rmmod pitrace
	elif [ -n "${PT_KO_REFUSES:-}" ]; then
		# The module refuses this kernel by construction (a00 checks how).
		echo "SKIP $name: pitrace.ko does not load here: $PT_KO_REFUSES"
		continue
	elif ! loaded && ! insmod "$PT_KO"; then
		echo "FAIL $name: insmod failed"
		continue
	fi
	# The hang guard: PT_CASE_TIMEOUT, or the case's own "# case-timeout: N"
	# line (the stress cases, whose work grows with the host's load).
	limit=$(sed -n 's/^# case-timeout: \([0-9]*\)$/\1/p' "$c" | head -n 1)
	(cd "$dir" && timeout "${limit:-${PT_CASE_TIMEOUT:-240}}" sh "$c") >"$dir.out" 2>&1
	rc=$?
	cat "$dir.out"
	if ! grep -q -E '^(PASS|FAIL|SKIP) ' "$dir.out"; then
		echo "FAIL $name: no result line (exit $rc)"
	elif [ $rc != 0 ] && ! grep -q '^FAIL ' "$dir.out"; then
		echo "FAIL $name: exit status $rc"
	fi
	# A collector may still be exiting: give the module 5 s to become free.
	tries=0
	while loaded && ! rmmod pitrace 2>/dev/null && [ $tries -lt 50 ]; do
		tries=$((tries + 1))
		sleep 0.1
	done
	if loaded; then
		echo "FAIL $name: pitrace.ko cannot be unloaded 5 s after the case" \
			"(refcnt $(cat /sys/module/pitrace/refcnt))"
		ls -l /proc/[0-9]*/fd 2>/dev/null | grep -B20 /dev/pitrace | grep -E '^/proc|pitrace'
		ps -o pid,stat,comm,args
		# What the case left holding the driver (a collector of a timed-out
		# case) goes, so that the next cases start from a clean driver.
		for fd in /proc/[0-9]*/fd/*; do
			[ "$(readlink "$fd" 2>/dev/null)" = /dev/pitrace ] || continue
			pid=${fd#/proc/}
			kill -9 "${pid%%/*}" 2>/dev/null
		done
		rm -f /run/pitrace/session /run/pitrace/result
		tries=0
		while loaded && ! rmmod pitrace 2>/dev/null && [ $tries -lt 50 ]; do
			tries=$((tries + 1))
			sleep 0.1
		done
		loaded && echo "INFO $name: pitrace.ko still loaded after its holders were killed"
	fi
	rm -rf "$dir"
done
echo "pitrace-vm: dmesg"
dmesg | sed 's/^/dmesg: /'
echo "pitrace-vm: done"
sync
poweroff -f
