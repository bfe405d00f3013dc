#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The source tree's includes (scripts/include_cycles.py): no cycle between
# modules, no two headers with one name, no header of pitrace/ hidden by
# the public include/pitrace/.  The checker is shown to find each of these
# in a small tree made to have them, and the tree passes it.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
CHECK=$ROOT/scripts/include_cycles.py

# A tree with one of each problem: a.c and b.c include each other's
# header, post/ and util/ both have a names.h, pitrace/abi.h is hidden.
mkdir -p bad/include/pitrace bad/util bad/post bad/pitrace bad/arch/x86_64/driver bad/driver
printf 'CFLAGS += -Iinclude -I.\n' >bad/Makefile
printf 'ccflags-y := -I$(PITRACE_ROOT)/include -I$(PITRACE_ROOT)/driver\n' >bad/driver/Kbuild
touch bad/include/pitrace/abi.h bad/pitrace/abi.h bad/util/names.h bad/post/names.h
printf '#include "util/b.h"\n' >bad/util/a.c
printf '#include "util/a.h"\n' >bad/util/b.c
touch bad/util/a.h bad/util/b.h
run_expect_status "check of a tree with problems" 1 "$CHECK" bad >bad.out
grep -qx 'cycle: util/a -> util/b -> util/a (util/a.c includes util/b.h; util/b.c includes util/a.h)' \
	bad.out || { cat bad.out; fail "the cycle util/a <-> util/b is not reported"; }
grep -qx 'same name: names.h: post/names.h util/names.h' bad.out ||
	{ cat bad.out; fail "the two names.h are not reported"; }
grep -q '^hidden: pitrace/abi.h: ' bad.out || { cat bad.out; fail "pitrace/abi.h is not reported"; }
expect_eq "problems reported" 3 "$(wc -l <bad.out)"

# The tree itself.  One cycle is known, between modules, not headers: the
# engine's files (callflow.c and the cf_*.c split from it) share
# cf_internal.h, which includes the public callflow.h, and callflow.h holds
# the types cf_runs.h uses (cf_tally, cf_source, the limits); it goes when
# those types have a header of their own.
KNOWN='cycle: util/callflow -> util/cf_internal -> util/callflow ('
"$CHECK" -v "$ROOT" >tree.out 2>&1
rc=$?
grep -vF "$KNOWN" tree.out | grep -v '^include_cycles: ' >problems.out
[ ! -s problems.out ] || { cat problems.out; fail "the source tree's includes have problems"; }
known=$(grep -cF "$KNOWN" tree.out)
expect_eq "exit status" $((known ? 1 : 0)) "$rc"
grep -q "^include_cycles: [1-9][0-9]* sources, [1-9][0-9]* headers, [1-9][0-9]* includes of them, $known problems\$" \
	tree.out || { cat tree.out; fail "unexpected summary"; }
echo "PASS"
