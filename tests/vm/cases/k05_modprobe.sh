# SPDX-License-Identifier: GPL-2.0
# pitrace loads the driver itself.  With /dev/pitrace missing, `pitrace
# record --backend driver` runs `modprobe pitrace` (the harness installs the
# module as dkms does: /lib/modules/RELEASE/updates/dkms, modules.dep) and
# records vm_loop's 30004 instructions; `pitrace --version` names the
# loaded module's version and ABI.  Not as root, or with no module
# installed for the kernel, nothing is loaded and one line says how to get
# the driver.
set -u
. /pt/cases/lib.inc
rel=$(uname -r)
dep=/lib/modules/$rel/modules.dep
loaded() { [ -d /sys/module/pitrace ]; }
one_line() {	# one_line NAME FILE PATTERN: FILE is one line matching PATTERN
	if [ "$(wc -l <"$2")" = 1 ] && grep -q -- "$3" "$2"; then
		echo "PASS $1"
	else
		echo "FAIL $1: said '$(cat "$2")', expected one line with '$3'"
	fi
}

rmmod pitrace || { echo "FAIL modprobe-setup: cannot unload pitrace.ko"; exit 0; }
[ -e /dev/pitrace ] && { echo "FAIL modprobe-setup: /dev/pitrace still there"; exit 0; }

# Not root: modprobe would fail; say how instead.
su nobody -s /bin/sh -c "cd /tmp && pitrace record --backend driver -o /tmp/nobody.data -- \
	$PT_PROGS/vm_loop" >out.nobody 2>err.nobody
check_eq modprobe-not-root-status "exit status" 1 $?
one_line modprobe-not-root-message err.nobody \
	"/dev/pitrace not found: the pitrace module of kernel $rel is not loaded (as root: modprobe pitrace)"
loaded && echo "FAIL modprobe-not-root-unloaded: the module was loaded" ||
	echo "PASS modprobe-not-root-unloaded"

# Root: loaded, then recorded.
pitrace record --backend driver -o m.data -- "$PT_PROGS/vm_loop" >out.root 2>err.root
check_eq modprobe-record-status "exit status" 0 $?
loaded && echo "PASS modprobe-loaded" || { cat err.root; echo "FAIL modprobe-loaded: not loaded"; }
grep -q "^pitrace: loaded the driver for kernel $rel (modprobe pitrace)$" err.root &&
	echo "PASS modprobe-says-so" || echo "FAIL modprobe-says-so: $(cat err.root)"
check_eq modprobe-record-steps "steps of vm_loop" 30004 \
	"$(post -i m.data info 2>/dev/null | sed -n 's/^steps: *//p')"
check_eq modprobe-record-ended "why the recording ended" exited \
	"$(post -i m.data info 2>/dev/null | sed -n 's/^ended: *//p')"
ver=$(cat /sys/module/pitrace/version 2>/dev/null)
line=$(pitrace --version | grep '^loaded driver:')
case $line in
"loaded driver: pitrace.ko $ver, ABI 1."[0-9]*) echo "PASS modprobe-version" ;;
*) echo "FAIL modprobe-version: '$line' (sysfs version '$ver')" ;;
esac
echo "INFO $line"

# No module for this kernel: nothing to load.
rmmod pitrace || echo "FAIL modprobe-unload: cannot unload after the recording"
cp "$dep" dep.saved
grep -v 'pitrace\.ko' dep.saved >"$dep"
pitrace record --backend driver -o none.data -- "$PT_PROGS/vm_loop" >out.none 2>err.none
check_eq modprobe-missing-status "exit status" 1 $?
one_line modprobe-missing-message err.none \
	"/dev/pitrace not found: no pitrace module for kernel $rel (install the pitrace-dkms package"
loaded && echo "FAIL modprobe-missing-unloaded: the module was loaded" ||
	echo "PASS modprobe-missing-unloaded"
cp dep.saved "$dep"
