#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post takes the decoder and symbol rules from the trace's ARCH attribute,
# whatever it runs on: ppc64le and aarch64 traces read on this host (the VM
# suite's p95 disassembles a real ppc64le one), and a trace of an
# architecture post does not know is refused in one line, exit 1 (--force
# reads it with the host's rules).
. "$(dirname "$0")/lib.sh"
[ -x "$PROGS/mktrace" ] || skip "$PROGS/mktrace not built (make progs)"

"$PROGS/mktrace" ppc --arch ppc64le --steps 1000 --loop 10 || fail "mktrace --arch ppc64le"
expect_eq "arch of the ppc64le trace" "ppc64le" "$("$POST" -i ppc info | sed -n 's/^arch: *//p')"
expect_eq "its steps, counted" "1000" \
	"$("$POST" -i ppc counts --by insn | awk '$NF == "total" { print $1 }')"

"$PROGS/mktrace" a64 --arch aarch64 --steps 1000 --loop 10 || fail "mktrace --arch aarch64"
expect_eq "arch of the aarch64 trace" "aarch64" "$("$POST" -i a64 info | sed -n 's/^arch: *//p')"
expect_eq "its steps, counted" "1000" \
	"$("$POST" -i a64 counts --by insn | awk '$NF == "total" { print $1 }')"

"$PROGS/mktrace" mips --arch mips64 --steps 10 || fail "mktrace --arch mips64"
"$POST" -i mips info >"$TMP/out" 2>"$TMP/err"
expect_eq "exit status on an unknown architecture" 1 $?
expect_eq "the one line post says" \
	"post: error: mips: a trace of architecture mips64, which this post cannot read (it reads x86_64, ppc64le, aarch64)" \
	"$(cat "$TMP/err")"
"$POST" --force -i mips info >"$TMP/out" 2>"$TMP/err" || fail "--force on mips64: $(cat "$TMP/err")"
grep -q "architecture mips64 unknown: read with" "$TMP/err" || fail "--force says nothing: $(cat "$TMP/err")"
echo PASS
