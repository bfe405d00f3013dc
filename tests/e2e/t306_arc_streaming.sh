#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The call-flow reports stream: on synthetic traces (tests/progs/mktrace) of
# 20 thousand and 3 million steps over the same 64 addresses, each report's
# peak memory is the same within 2 MB.
. "$(dirname "$0")/lib.sh"
[ -x "$PROGS/mktrace" ] || skip "mktrace is not built (make progs)"
[ -x /usr/bin/time ] || skip "/usr/bin/time is not installed"

"$PROGS/mktrace" small --steps 20000 --loop 64 --threads 2 --run 1000 || fail "mktrace small"
"$PROGS/mktrace" large --steps 3000000 --loop 64 --threads 2 --run 1000 || fail "mktrace large"
for report in "arc --check" "tree --merged" "profile" "flow --condensed" \
	"export --format chrome -o out.json" "export --format folded -o out.folded"; do
	for size in small large; do
		# shellcheck disable=SC2086
		/usr/bin/time -f %M -o "rss.$size" "$POST" -i $size $report >/dev/null ||
			fail "post $report on $size"
	done
	small=$(tail -1 rss.small) large=$(tail -1 rss.large)
	echo "post $report: $small KB for 20000 steps, $large KB for 3000000"
	[ "$large" -le $((small + 2048)) ] || fail "post $report: memory grows with steps"
done
expect_eq "steps of the large trace" 3000000 \
	"$("$POST" -i large arc --check | head -1 | cut -d' ' -f2)"
echo "PASS"
