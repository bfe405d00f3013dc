# SPDX-License-Identifier: GPL-2.0
# The module loads, makes a root-only /dev/pitrace, answers VERSION and
# STATUS with no session, and unloads and reloads cleanly.
set -u
dev=/dev/pitrace
if [ ! -c $dev ]; then
	echo "FAIL module-device: $dev missing after insmod"
	exit 0
fi
mode=$(stat -c '%a %U' $dev)
[ "$mode" = "600 root" ] && echo "PASS module-device-0600" || echo "FAIL module-device-0600: mode is $mode"
out=$(ptdrv version 2>&1)
case $out in
"abi 1."*) echo "PASS module-version" ;;
*) echo "FAIL module-version: $out" ;;
esac
out=$(ptdrv status 2>&1)
case $out in
*"claimed=0"*) echo "PASS module-status-idle" ;;
*) echo "FAIL module-status-idle: $out" ;;
esac
if rmmod pitrace && [ ! -e $dev ] && insmod "$PT_KO" && [ -c $dev ]; then
	echo "PASS module-reload"
else
	echo "FAIL module-reload: rmmod/insmod cycle failed"
fi
