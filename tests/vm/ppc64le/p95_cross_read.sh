# SPDX-License-Identifier: GPL-2.0
# Traces cross architectures (post takes the decoder from the trace's ARCH):
# a POWER trace recorded here (by the ptrace backend) is exported for the
# host's post to read (p95_cross_read.host.sh), and an x86_64 trace
# (mktrace's, built for POWER) reads here with post's x86_64 rules.
. /pt/cases/lib.inc
if pitrace record --backend ptrace -o sig -- $PT_PROGS/vm_onfunc >/dev/null 2>&1 &&
	post -i sig steps >sig.steps && post -i sig counts --by symbol >sig.counts &&
	post -i sig arc >sig.arc; then
	tar czf p95.tgz sig sig.steps sig.counts sig.arc
	export_file p95.tgz p95.tgz
	echo "PASS p-cross-export"
else
	echo "FAIL p-cross-export: recording or reading vm_signal failed"
fi
"$PT_PROGS/mktrace" x86 --steps 1000 --loop 10 || echo "FAIL p-cross-x86: mktrace failed"
check_eq p-cross-x86-arch "post info's arch of mktrace's trace" x86_64 \
	"$(post -i x86 info | sed -n 's/^arch: *//p')"
check_eq p-cross-x86-counts "its steps counted on POWER" 1000 \
	"$(post -i x86 counts --by insn | awk '$NF == "total" { print $1 }')"
