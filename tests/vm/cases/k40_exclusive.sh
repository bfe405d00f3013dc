# SPDX-License-Identifier: GPL-2.0
# One session at a time: a second claim gets EBUSY and STATUS names the
# holder; a non-root open is refused by the device's mode.
. /pt/cases/lib.inc
ptdrv claim -w >holder.out 2>&1 &
holder=$!
until ptdrv status | grep -q claimed=1; do sleep 0.1; done
out=$(ptdrv claim 2>&1)
check_eq exclusive-ebusy "second claim" "EBUSY owner=$holder" "$out"
kill $holder
wait $holder
out=$(ptdrv claim 2>&1)
check_eq exclusive-after-release "claim after the holder ended" "claimed pid=" "${out%%[0-9]*}"
check_eq nonroot-open-denied "open as nobody" EACCES "$(ptdrv nobody-open 2>&1)"
