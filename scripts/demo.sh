#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make demo`: trace examples/demo.c with pitrace, then print post's reports.
set -eu
cd "$(dirname "$0")/.."
out=${DEMO_DIR:-/tmp/pitrace-demo.data}
echo "== pitrace record -o $out -- build/progs/demo"
bin/pitrace record -o "$out" -- build/progs/demo
echo
echo "== post -i $out info"
bin/post -i "$out" info
echo
echo "== post -i $out counts --by module"
bin/post -i "$out" counts --by module
echo
echo "== post -i $out counts --by symbol --top 15"
bin/post -i "$out" counts --by symbol --top 15
for report in "profile --top 10" "arc --symbol fib" "tree --prune 2"; do
	cmd=${report%% *}
	if bin/post --help | grep -q "^  $cmd "; then
		echo
		echo "== post -i $out $report"
		# shellcheck disable=SC2086
		bin/post -i "$out" $report
	fi
done
