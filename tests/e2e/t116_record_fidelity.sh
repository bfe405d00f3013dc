#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A traced program behaves exactly as untraced: the same stdout, stderr
# (pitrace's own lines aside) and exit status, signals included.  Each
# pt_fid_* program does one thing tracers get wrong: fork (children writing,
# one killed by a signal), exec of a missing or non-executable file,
# sigaltstack (a handler on it, a thread's stack overflow caught there),
# vfork, reading its own flags with pushf (the trap flag stepping sets must
# not show), and being a tracer itself (its child's PTRACE_TRACEME).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
progs="pt_fid_fork pt_fid_exec pt_fid_altstack pt_fid_vfork pt_fid_pushf pt_fid_ptrace"
# shellcheck disable=SC2086
need_prog $progs

for prog in $progs; do
	same "$prog" "(record)"
	same "$prog" "(--on main)" --on main
	# pt_fid_ptrace's child cannot ask for a tracer when pitrace is one
	# already (docs/record.md, Known limits)
	[ "$prog" = pt_fid_ptrace ] || same "$prog" "(--follow-fork)" --follow-fork
done
# what the fixes are for: the trap flag is set while stepping, and hidden
expect_eq "pushf under tracing" "trap flag seen: no" "$("$PITRACE" record -o p -- "$PROGS/pt_fid_pushf" 2>/dev/null | head -1)"
# flags16 runs three times: its pushf counts once each
expect_eq "flags16's pushf" 3 \
	"$("$POST" -i p counts --by insn | awk '$4 ~ /^flags16\+/ && $NF == "pushf" { print $1 }')"
echo "PASS"
