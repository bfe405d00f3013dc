#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make demo`: trace examples/demo.c with pitrace, then print post's reports.
set -eu
cd "$(dirname "$0")/.."
out=${DEMO_DIR:-/tmp/pitrace-demo.data}
run() {
	echo
	echo "== $*"
	"$@"
}
run bin/pitrace record -o "$out" -- build/progs/demo
run bin/post -i "$out" info
run bin/post -i "$out" counts --by module
run bin/post -i "$out" counts --by symbol --top 15
run bin/post -i "$out" profile --top 10
run bin/post -i "$out" arc --symbol fib
run bin/post -i "$out" tree --prune 2
run bin/post -i "$out" annotate --symbol fib
run bin/post -i "$out" export --format callgrind -o "$out/callgrind.out"
run bin/post -i "$out" export --format svg -o "$out/flame.svg"
echo
echo "The trace is in $out; $out/callgrind.out opens in KCachegrind or callgrind_annotate,"
echo "$out/flame.svg in a browser."
