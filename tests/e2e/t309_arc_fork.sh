#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A forked child's trace starts inside the fork wrapper: its returns out of
# frames older than the trace reconstruct the callers (fork, main), marked
# '?' in the flow; the invariants hold and the Chrome export stays matched.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"
[ -x "$PROGS/pt_forkexec" ] || skip "pt_forkexec is not built (make progs)"
"$PITRACE" record --follow-fork -o trace -- "$PROGS/pt_forkexec" "$PROGS/arc_basic" \
	>record.out 2>&1 || skip "pitrace record --follow-fork cannot trace here: $(tail -1 record.out)"
arc_verify trace

arc_check trace 40
expect_eq "threads" 2 "$(arc_stat trace threads)"
[ "$(arc_stat trace unmatched)" -ge 1 ] || fail "no unmatched return in the child"
child=$("$POST" -i trace tree | sed -n 's/^# thread \([0-9]*\) .*/\1/p' | sed -n 2p)
"$POST" -i trace flow --tid "$child" >flow || fail "flow"
grep -q '? main \[pt_forkexec\] (unmatched return' flow || fail "main not reconstructed in the child: $(head flow)"
# the child's tree now has main at its top, the fork wrapper under it
"$POST" -i trace tree --tid "$child" | awk '!/^#/ && $1 == 0 { print $(NF - 1), $NF }' |
	grep -qx 'main \[pt_forkexec\]' ||
	fail "main is not a root of the child's tree"
"$POST" -i trace export --format chrome -o out.json || fail "export chrome"
python3 - out.json <<'PY' || fail "chrome JSON"
import json, sys
stacks = {}
events = json.load(open(sys.argv[1]))["traceEvents"]
for i, e in sorted(enumerate(events), key=lambda p: (p[1]["ts"], p[0])):
    s = stacks.setdefault(e["tid"], [])
    if e["ph"] == "B":
        s.append(e["name"])
    elif e["ph"] == "E":
        assert s and s.pop() == e["name"], "unmatched E %r" % (e,)
assert not any(stacks.values()), "unclosed B events"
PY
echo "PASS"
