# SPDX-License-Identifier: GPL-2.0
# POWER: the module loads on a pseries POWER9 guest, makes a root-only
# /dev/pitrace, answers VERSION and STATUS with no session (no kernel
# debugger holds the step hook), and unloads and reloads cleanly.
set -u
dev=/dev/pitrace
if [ ! -c $dev ]; then
	echo "FAIL p-module-device: $dev missing after insmod"
	exit 0
fi
mode=$(stat -c '%a %U' $dev)
[ "$mode" = "600 root" ] && echo "PASS p-module-device-0600" ||
	echo "FAIL p-module-device-0600: mode is $mode"
out=$(ptdrv version 2>&1)
case $out in
"abi 1."*) echo "PASS p-module-version" ;;
*) echo "FAIL p-module-version: $out" ;;
esac
out=$(ptdrv status 2>&1)
case $out in
*"claimed=0"*) echo "PASS p-module-status-idle" ;;
*) echo "FAIL p-module-status-idle: $out" ;;
esac
echo "INFO cpu: $(grep -m1 '^cpu' /proc/cpuinfo) $(grep -m1 '^platform' /proc/cpuinfo)"
if rmmod pitrace && [ ! -e $dev ] && insmod "$PT_KO" && [ -c $dev ]; then
	echo "PASS p-module-reload"
else
	echo "FAIL p-module-reload: rmmod/insmod cycle failed"
fi
