# SPDX-License-Identifier: GPL-2.0
# Helpers for the ptrace backend's end-to-end tests (t1*.sh); source after lib.sh.

[ -x "$PITRACE" ] && [ -x "$POST" ] || skip "pitrace/post not built (make all)"

# need_prog NAME...: the test programs must be built
need_prog() {
	for p in "$@"; do
		[ -x "$PROGS/$p" ] || skip "$PROGS/$p not built (make progs)"
	done
}

# count_of TRACE NAME [post counts options]: the count column of the row
# whose last column is NAME ("" when there is none)
count_of() {
	local trace=$1 name=$2
	shift 2
	"$POST" -i "$trace" counts --by symbol "$@" | awk -v n="$name" '!/^#/ && $NF == n { print $1; exit }'
}

# total_of TRACE [post counts options]: the total row's count
total_of() {
	local trace=$1
	shift
	"$POST" -i "$trace" counts "$@" | awk '!/^#/ && $NF == "total" { print $1; exit }'
}

# info_field TRACE FIELD: a "field: value" line of post info
info_field() {
	"$POST" -i "$1" info | awk -v f="$2:" '$1 == f { $1 = ""; sub(/^ /, ""); print; exit }'
}

# same PROG WHAT [pitrace record options]: traced and untraced agree (exit
# status, stdout, stderr without pitrace's lines) and the trace reads.
# PROG is a path, or a name in $PROGS.
same() {
	local prog=$1 what=$2 path=$1 rc trc
	shift 2
	[[ $path == */* ]] || path=$PROGS/$prog
	prog=${prog##*/}
	"$path" >want.out 2>want.err
	rc=$?
	rm -rf t
	"$PITRACE" record "$@" -o t -- "$path" >got.out 2>got.all
	trc=$?
	grep -v '^pitrace: ' got.all >got.err
	expect_eq "$prog $what: exit status" "$rc" "$trc"
	expect_same_file "$prog $what: stdout" want.out got.out
	expect_same_file "$prog $what: stderr" want.err got.err
	"$POST" -i t info >/dev/null || fail "$prog $what: the trace does not read"
}
