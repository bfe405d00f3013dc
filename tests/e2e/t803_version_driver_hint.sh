#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# pitrace --version and post --version: the build's version (the one
# scripts/version.sh gives this tree), the trace format and driver ABI
# versions of include/pitrace/, and the loaded driver or why there is none.
# Without /dev/pitrace, commands that need the driver say in one line why
# it is missing on this host and how to get it (tests/vm/cases/k05 covers
# the kernels that load modules: modprobe, not root, no module installed).
. "$(dirname "$0")/lib.sh"

version=$("$ROOT/scripts/version.sh") || fail "scripts/version.sh failed"
fmt=$(sed -n 's/^#define PT_FORMAT_VERSION \([0-9]*\)$/\1/p' "$ROOT/include/pitrace/format.h")
minr=$(sed -n 's/^#define PT_FORMAT_MIN_READER \([0-9]*\)$/\1/p' "$ROOT/include/pitrace/format.h")
major=$(sed -n 's/^#define PITRACE_ABI_MAJOR \([0-9]*\)$/\1/p' "$ROOT/include/pitrace/abi.h")
minor=$(sed -n 's/^#define PITRACE_ABI_MINOR \([0-9]*\)$/\1/p' "$ROOT/include/pitrace/abi.h")

"$PITRACE" --version >out 2>err || fail "pitrace --version failed: $(cat err)"
[ -s err ] && fail "pitrace --version wrote to stderr: $(cat err)"
[ "$(sed -n 1p out)" = "pitrace $version" ] ||
	fail "pitrace --version says '$(sed -n 1p out)', this tree is $version (a build of another commit? make)"
expect_eq "pitrace --version line 2" \
	"trace format: writes $fmt (readable by readers of format $minr and later)" "$(sed -n 2p out)"
expect_eq "pitrace --version line 3" \
	"driver ABI: $major.$minor (this build; it needs a driver of ABI $major.x)" "$(sed -n 3p out)"
"$POST" --version >out 2>err || fail "post --version failed: $(cat err)"
expect_eq "post --version" "post $version"$'\n'"trace format: reads up to $fmt" "$(cat out)"

[ -e /dev/pitrace ] && skip "the driver is loaded here (the rest needs it absent)"
rel=$(uname -r)
if [ ! -e /proc/modules ]; then
	why="/dev/pitrace not found, and kernel $rel cannot load modules: the driver needs a kernel with module support (the ptrace backend works here)"
elif ! grep -qs '/pitrace\.ko' "/lib/modules/$rel/modules.dep"; then
	why="/dev/pitrace not found: no pitrace module for kernel $rel (install the pitrace-dkms package and linux-headers-$rel, or build it: make driver, insmod pitrace.ko)"
else
	skip "a pitrace module is installed for kernel $rel here: start would load it"
fi
expect_eq "pitrace --version, no driver" "loaded driver: none ($why)" \
	"$("$PITRACE" --version | sed -n 4p)"
for cmd in "start --all" "record --backend driver -- /bin/true" status; do
	# shellcheck disable=SC2086 # the command's words
	"$PITRACE" $cmd >out 2>err
	rc=$?
	expect_eq "pitrace $cmd: exit status" 1 "$rc"
	expect_eq "pitrace $cmd: message" "pitrace: error: $why" "$(cat err)"
done
exit 0
