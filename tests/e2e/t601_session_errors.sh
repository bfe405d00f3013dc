#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Driver session commands on a machine without the driver, and their usage
# errors: one-line messages, exit 2 for usage, 1 for a missing driver.
. "$(dirname "$0")/lib.sh"

[ -e /dev/pitrace ] && skip "the driver is loaded here: these cases need it absent (see tests/vm/cases/s10_session_basics.sh)"

# expect_err WHAT STATUS PATTERN CMD...: CMD exits with STATUS, saying PATTERN in one line
expect_err() {
	local what=$1 want=$2 pattern=$3
	shift 3
	"$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	[ "$rc" = "$want" ] || fail "$what: exit status $rc, expected $want ($(cat "$TMP/err"))"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "$what: expected one line, got: $(cat "$TMP/err")"
	grep -q -- "$pattern" "$TMP/err" || fail "$what: said '$(cat "$TMP/err")', expected '$pattern'"
	[ -s "$TMP/out" ] && fail "$what: wrote to stdout: $(cat "$TMP/out")"
	return 0
}

# The reason and the way to get the driver follow (t804 checks them).
nodrv='^pitrace: error: /dev/pitrace not found[:,] '
expect_err "start, no driver" 1 "$nodrv" "$PITRACE" start -p 1
expect_err "status, no driver" 1 "$nodrv" "$PITRACE" status
expect_err "on, no driver" 1 "$nodrv" "$PITRACE" on
expect_err "off, no driver" 1 "$nodrv" "$PITRACE" off
expect_err "record --backend driver, no driver" 1 "$nodrv" "$PITRACE" record --backend driver -- /bin/true
[ -e pitrace.data ] && fail "a failed start left a trace directory"

# Usage errors come before the driver is looked for.
expect_err "no selection" 2 'say what to trace' "$PITRACE" start
expect_err "two selections" 2 'give one selection' "$PITRACE" start --all -p 1
expect_err "bad pid list" 2 "-p: '1,x' is not a list of pids" "$PITRACE" start -p 1,x
expect_err "empty range" 2 'empty range 9-3' "$PITRACE" start --pid-range 9-3
expect_err "long comm" 2 'longer than a command name can be' "$PITRACE" start --comm abcdefghijklmnopq
expect_err "bad mode" 2 "start: --mode 'fast' is not one of step, block, count (see 'pitrace start --help')" "$PITRACE" start --all --mode fast
expect_err "bad size" 2 "'0' is not a size in MiB" "$PITRACE" start --all --buffer-size 0
expect_err "two policies" 2 'exclude each other' "$PITRACE" start --all --wrap --stop-when-full
expect_err "stray argument" 2 "unexpected argument 'x'" "$PITRACE" start --all x
expect_err "stop argument" 2 "unexpected argument 'now'" "$PITRACE" stop now
# Option mistakes: one line naming the option, as every command's.
expect_err "start, unknown option" 2 "^pitrace: error: start: unknown option '--bogus' (see 'pitrace start --help')$" "$PITRACE" start --bogus
expect_err "start, no value" 2 "^pitrace: error: start: option -p/--pid needs an argument (PIDS)" "$PITRACE" start -p
expect_err "start, ambiguous" 2 "start: ambiguous option '--p'" "$PITRACE" start --p 3
expect_err "status, unknown option" 2 "^pitrace: error: status: unknown option '-q' (see 'pitrace status --help')$" "$PITRACE" status -q
expect_err "bad backend" 2 "'kernel' is not one of driver, ptrace" "$PITRACE" record --backend kernel -- /bin/true
exit 0
