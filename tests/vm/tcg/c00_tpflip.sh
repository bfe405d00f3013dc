# SPDX-License-Identifier: GPL-2.0
# tests/vm/tcg/question.sh: tracepoints' static keys flipped by tpflip.ko,
# a module with no pitrace in it, while both vCPUs run busy loops.
# pitrace.ko is never loaded in the boot that runs this case (question.sh
# boots once per case): only tpflip patches the kernel's text here.
# case-module: none
ko=/pt/cases/tpflip-$(uname -r).ko
[ -e "$ko" ] || { echo "SKIP tcg-tpflip: no $ko"; exit 0; }
(while :; do :; done) &
h1=$!
(while :; do :; done) &
h2=$!
if insmod "$ko" flips=2000 seconds=150; then
	dmesg | grep 'tpflip:' | tail -1 | sed 's/^.*tpflip:/INFO tpflip:/'
	rmmod tpflip && echo "PASS tcg-tpflip" || echo "FAIL tcg-tpflip: rmmod"
else
	echo "FAIL tcg-tpflip: insmod failed"
fi
kill $h1 $h2
