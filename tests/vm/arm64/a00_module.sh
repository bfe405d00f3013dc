# SPDX-License-Identifier: GPL-2.0
# arm64: on a kernel with debug-monitors' step hook lists (6.1) the module
# loads on a virt guest, makes a root-only /dev/pitrace, answers VERSION and
# STATUS with no session, and unloads and reloads cleanly.  On a kernel
# without them (the debug exception rework: Debian's 6.12) the module,
# built for it, refuses to load with one kernel log line that says why.
# case-module: none
. /pt/cases/lib.inc
dev=/dev/pitrace
if [ -n "${PT_KO_REFUSES:-}" ]; then
	# What insmod adds to the kernel log (busybox tries finit_module, then
	# init_module: one line per attempt), but for the taint notices.
	before=$(dmesg | grep -c 'pitrace: ')
	insmod "$PT_KO" 2>insmod.err && rc=0 || rc=failed
	check_eq a-module-refuses "insmod on a kernel without step hooks" failed $rc
	check_eq a-module-refusal-line "the kernel log lines insmod added" \
		"pitrace: this kernel has no arm64 step hook lists (debug exception rework): no driver, use the ptrace backend (docs/arm64.md)" \
		"$(dmesg | grep 'pitrace: ' | tail -n +$((before + 1)) | sed 's/^\[[ 0-9.]*\] //' |
			grep -v 'taint' | sort -u)"
	check_eq a-module-not-loaded "pitrace in /proc/modules" 0 "$(grep -c '^pitrace ' /proc/modules)"
	exit 0
fi
if ! insmod "$PT_KO"; then
	echo "FAIL a-module-insmod: insmod failed: $(dmesg | grep pitrace: | tail -n 1)"
	exit 0
fi
mode=$(stat -c '%a %U' $dev)
check_eq a-module-device-0600 "mode of $dev" "600 root" "$mode"
out=$(ptdrv version 2>&1)
case $out in
"abi 1."*) echo "PASS a-module-version" ;;
*) echo "FAIL a-module-version: $out" ;;
esac
out=$(ptdrv status 2>&1)
case $out in
*"claimed=0"*) echo "PASS a-module-status-idle" ;;
*) echo "FAIL a-module-status-idle: $out" ;;
esac
if rmmod pitrace && [ ! -e $dev ] && insmod "$PT_KO" && [ -c $dev ]; then
	echo "PASS a-module-reload"
else
	echo "FAIL a-module-reload: rmmod/insmod cycle failed"
fi
