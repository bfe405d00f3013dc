# SPDX-License-Identifier: GPL-2.0
# tests/vm/tcg/question.sh: the same flips by pitrace's own sessions (each
# start attaches its probes, each stop detaches them), selecting a command
# name no process has, while both vCPUs run busy loops: 100 sessions or
# 150 s, whichever comes first.
(while :; do :; done) &
h1=$!
(while :; do :; done) &
h2=$!
i=0 ok=0 end=$(($(date +%s) + 150))
while [ $i -lt 100 ] && [ "$(date +%s)" -lt $end ]; do
	i=$((i + 1))
	pitrace start --comm no-such-comm -o s >/dev/null 2>&1 && pitrace stop >/dev/null 2>&1 && ok=$((ok + 1))
	rm -rf s s.old
done
kill $h1 $h2
echo "INFO sessions: $ok of $i started and stopped"
[ $ok = $i ] && echo "PASS tcg-sessions" || echo "FAIL tcg-sessions: $ok of $i"
