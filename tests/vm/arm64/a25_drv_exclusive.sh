# SPDX-License-Identifier: GPL-2.0
# arm64 exclusive sequences under the driver: a load-exclusive is never
# stepped (the step's exception return would clear the monitor and the
# store-exclusive would fail forever); the task runs natively from it,
# untraced, until it next enters the kernel (docs/arm64.md).  So vm_atomic
# finishes with every stlxr stored (exit status 0), the trace says the
# sequences ran untraced, and its count is not the 6008 of its construction
# (the ptrace backend's, checked by a20): an INFO line gives both.
. /pt/cases/lib.inc
info_field() {	# info_field TRACE KEY: the value of "KEY:" in post info
	post -i "$1" info | sed -n "s/^$2: *//p"
}
pitrace record --backend driver -o drv -- "$PT_PROGS/vm_atomic" >drv.out 2>&1
check_eq a-drv-atomic-exit "exit status (0: every stlxr stored)" 0 $?
echo "INFO vm_atomic under the driver: steps $(info_field drv steps) (by construction 6008);" \
	"atomic: $(info_field drv atomic); gaps: $(info_field drv gaps)"
case $(info_field drv atomic) in
*" ran untraced"*) [ "$(info_field drv atomic | sed -n 's/.*exact: \([0-9]*\) ran untraced.*/\1/p')" -ge 1 ] &&
	echo "PASS a-drv-atomic-native" ||
	echo "FAIL a-drv-atomic-native: no sequence said to run untraced: $(info_field drv atomic)" ;;
*) echo "FAIL a-drv-atomic-native: post info atomic: $(info_field drv atomic)" ;;
esac
