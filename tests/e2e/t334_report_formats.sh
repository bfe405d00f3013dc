#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --format json|csv: every table report (counts, profile, arc, tree, diff,
# info) on tests/progs/report_names.S, whose functions are named with a
# comma, quotes, UTF-8 and a byte that is not UTF-8.  The JSON parses and
# carries its schema and version, the CSV's rows are the JSON's, and both
# hold the text's numbers and names row by row (report_formats.py); the
# numbers known by construction are checked in the JSON too.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"

arc_record names "$PROGS/report_names"
arc_record basic "$PROGS/arc_basic"

# check REPORT ARGS...: the three formats of one report agree
check() {
	local report=$1
	shift
	"$POST" "$@" >out.txt || fail "post $* exits $?"
	"$POST" "$@" --format json >out.json || fail "post $* --format json exits $?"
	"$POST" "$@" --format csv >out.csv || fail "post $* --format csv exits $?"
	python3 "$ROOT/tests/e2e/report_formats.py" "$report" out.txt out.json out.csv >check.out ||
		{ cat check.out; fail "post $*: the formats differ"; }
	checked=$((checked + 1))
}

# json EXPR: EXPR of the last JSON document (d), printed by Python
json() {
	python3 -c 'import json, sys; d = json.load(open("out.json")); print('"$1"')'
}

checked=0
FFFD=$'\xef\xbf\xbd'	# U+FFFD, what JSON and CSV write for a byte not UTF-8
check counts -i names counts
expect_eq "counts total" 17 "$(json 'd["total"]')"
expect_eq "counts rows" "[[6, 'a,\"b\"é'], [3, 'café'], [2, 'x${FFFD}y']]" \
	"$(json '[[r[0], r[3]] for r in d["rows"] if r[3] != "_start"]')"
check counts -i names counts --by insn
check counts -i names counts --symbol café --top 1
expect_eq "counts filter" "{'symbol': 'café'} 3 3" "$(json 'd["filter"], d["shown"], d["sum"]')"

check profile -i names profile
expect_eq "profile" "[[2, 6, 6, 'a,\"b\"é'], [1, 3, 5, 'café'], [1, 2, 2, 'x${FFFD}y']]" \
	"$(json '[[r[0], r[1], r[3], r[5]] for r in d["rows"] if r[5] != "_start"]')"
check profile -i names profile --top 2 --sort name
expect_eq "profile --top 2" "2 2" "$(json 'len(d["rows"]), d["more_functions"]')"

check arc -i names arc
expect_eq "arc callers of café" "[['_start', 1, 3, 5]]" \
	"$(json '[[r[8], r[3], r[4], r[6]] for r in d["rows"] if r[0] == "café" and r[2] == "caller"]')"
check arc -i basic arc --percent-limit 30

check tree -i names tree
expect_eq "tree depths" "[0, 1, 1, 2]" "$(json '[r[2] for r in d["rows"]]')"
check tree -i names tree --merged
check tree -i names tree --inverted

check diff diff basic names
expect_eq "diff statuses" "['gone', 'gone', 'gone', 'gone', 'new', 'new', 'new', 'new']" \
	"$(json 'sorted(r[2] for r in d["rows"])')"
check diff diff names names
expect_eq "diff deltas" "{0}" "$(json 'set(r[5] for r in d["rows"])')"

check info -i names info
expect_eq "info steps" "17 17" "$(json 'd["steps"], d["stream_steps"]')"

# not a report format: one line, usage status; export keeps its own --format
run_expect_status "counts --format svg" 2 "$POST" -i names counts --format svg 2>err.txt
grep -q "'post export --format'" err.txt || fail "--format svg does not point at export: $(cat err.txt)"
run_expect_status "export --format json" 2 "$POST" -i names export --format json 2>/dev/null
echo "PASS ($checked reports in three formats)"
