# SPDX-License-Identifier: GPL-2.0
# A trace read on another machine, guest half: a program that exists only
# in the guest (a test program copied to a path the host lacks) is traced
# by the driver, reported here (counts by symbol and by line, profile, of
# its own module), and archived with pitrace archive; trace, archive and
# reports go to the host (export_file), where s50_archive.host.sh reads the
# trace through the archive and compares.
. /pt/cases/lib.inc
APP=/opt/pt-guest-only/bin/qsort-app
mkdir -p "${APP%/*}"
cp "$PT_PROGS/arc_qsort" "$APP"
pitrace record --backend driver -o t -- "$APP" >rec.out 2>&1
check_eq s50-record "exit status of pitrace record --backend driver" 0 $?
post -i t counts --by symbol --module qsort-app >counts.symbol 2>&1
post -i t counts --by line --module qsort-app >counts.line 2>&1
post -i t profile --module qsort-app >profile 2>&1
if grep -q ' cmp_int$' counts.symbol && grep -q 'arc_qsort.c:' counts.line; then
	echo "PASS s50-guest-reports"
else
	echo "FAIL s50-guest-reports: no cmp_int or no lines: $(grep -v '^#' counts.symbol | head -n 3)"
fi
pitrace archive t >archive.out 2>&1
check_eq s50-archive "exit status of pitrace archive" 0 $?
if [ -s t.tar.zst ]; then
	echo "PASS s50-archive-written"
else
	echo "FAIL s50-archive-written: no t.tar.zst: $(cat archive.out)"
fi
echo "INFO s50: $(head -n 1 archive.out)"
tar czf export.tgz t t.tar.zst counts.symbol counts.line profile
export_file s50-archive.tgz export.tgz
