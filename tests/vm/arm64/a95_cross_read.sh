# SPDX-License-Identifier: GPL-2.0
# arm64 traces read on another machine, guest half (host half:
# a95_cross_read.host.sh).  A C program that exists only in the guest
# (vm_atomics copied to a path the host lacks: threads, inline exclusive
# sequences, glibc statically linked, with its debug information) is
# recorded by the ptrace backend, reported here (counts by symbol and by
# line, profile, arcs, steps with their disassembly), and archived with
# pitrace archive; trace, archive and reports go to the host, whose own
# post reads the trace through the archive and must give the same reports.
# case-module: none
# case-timeout: 900
. /pt/cases/lib.inc
APP=/opt/pt-guest-only/bin/atomics-app
mkdir -p "${APP%/*}"
cp "$PT_PROGS/vm_atomics" "$APP"
pitrace record --backend ptrace -o t -- "$APP" 5 >rec.out 2>&1
check_eq a-cross-record "exit status of the recorded program (0: no increment lost)" 0 $?
echo "INFO a95: $(grep '^pitrace: .* steps' rec.out)"
post -i t counts --by symbol >counts.symbol 2>&1
post -i t counts --by line --module atomics-app >counts.line 2>&1
post -i t profile >profile 2>&1
post -i t arc >arc 2>&1
post -i t steps >steps 2>&1
if grep -q ' worker$' counts.symbol && grep -q 'vm_atomics.c:' counts.line; then
	echo "PASS a-cross-guest-reports"
else
	echo "FAIL a-cross-guest-reports: no worker or no lines: $(grep -v '^#' counts.symbol | head -n 3)"
fi
pitrace archive t >archive.out 2>&1
check_eq a-cross-archive "exit status of pitrace archive" 0 $?
echo "INFO a95: $(head -n 1 archive.out)"
tar czf export.tgz t t.tar.zst counts.symbol counts.line profile arc steps
export_file a95-cross.tgz export.tgz
