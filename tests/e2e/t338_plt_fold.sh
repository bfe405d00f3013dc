#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PLT stubs, folded (post --plt fold, the default) as callgrind folds them:
# a call through printf@plt is a call of printf from its caller, the stub's
# steps are the caller's, and ld.so's lazy binding resolver is a callee of
# the caller that passes the call on to what it bound.  So with lazy binding
# (no LD_BIND_NOW) the program's own functions have callgrind's self
# instructions and calls; every report and export names no stub; --plt keep
# shows the stubs as functions, with the same total and the same Cum.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"
demo=$PROGS/demo
unset LD_BIND_NOW
arc_record oracle "$demo"
arc_check oracle 40

# main calls printf and qsort through their stubs: one call each, from main
calls_of() {	# calls_of CALLEE [POST-ARGS]: main's calls of CALLEE in post arc
	local callee=$1
	shift
	"$POST" -i oracle "$@" arc --symbol main |
		awk -v c="$callee" '!/^#/ && $4 == ">" && $5 == c { print $1 }'
}
expect_eq "main's calls of printf, folded" 1 "$(calls_of printf)"
expect_eq "main's calls of qsort, folded" 1 "$(calls_of qsort)"
resolves=$(calls_of _dl_runtime_resolve_xsavec)
[ -z "$resolves" ] && resolves=$(calls_of _dl_runtime_resolve_xsave)
[ -z "$resolves" ] && resolves=$(calls_of _dl_runtime_resolve_fxsave)
expect_eq "main's calls of the lazy binding resolver (printf, qsort)" 2 "$resolves"
expect_eq "main's calls of printf@plt, kept" 1 "$(calls_of printf@plt --plt keep)"
expect_eq "main's calls of printf, kept (the stub jumped)" 0 "$(calls_of printf --plt keep)"

# Folded, no report or export names a stub; kept, they do
for r in "profile --wide" "arc --wide" "tree --wide" "flow" "export --format callgrind -o -" \
	"export --format folded -o -" "export --format chrome -o -"; do
	# shellcheck disable=SC2086
	n=$("$POST" -i oracle $r) || fail "post $r"
	# shellcheck disable=SC2086
	k=$("$POST" -i oracle --plt keep $r) || fail "post --plt keep $r"
	grep -v '^# command' <<<"$n" | grep -qE '@plt|(^|[ ;"=>])\.plt' &&
		fail "post $r names a stub: $(grep -E '@plt|\.plt' <<<"$n" | head -1)"
	grep -q 'printf@plt' <<<"$k" || fail "post --plt keep $r names no printf@plt"
done

# the same steps either way: the Base of the kept stubs is in their callers'
base_sum() {
	awk '!/^#/ && NF >= 6 { s += $2 } END { print s }'
}
expect_eq "sum of Base, folded and kept" "$("$POST" -i oracle --plt keep profile | base_sum)" \
	"$("$POST" -i oracle profile | base_sum)"
cum_main() {
	awk '!/^#/ && $6 == "main" { print $4 }'
}
expect_eq "Cum of main, folded and kept" "$("$POST" -i oracle --plt keep profile | cum_main)" \
	"$("$POST" -i oracle profile | cum_main)"

# callgrind, lazy binding too: the program's own functions agree
ARC_ORACLE_BIND_NOW='' arc_oracle "$demo" main fib cmp_int
"$POST" -i oracle --verify arc >/dev/null 2>verify.err || { cat verify.err; fail "post --verify arc"; }

# a usage error names the choices
"$POST" -i oracle --plt fuse profile >/dev/null 2>err
expect_eq "--plt fuse: exit status" 2 "$?"
grep -q 'fold' err || fail "--plt fuse: the error names no choice: $(cat err)"
echo "PASS"
