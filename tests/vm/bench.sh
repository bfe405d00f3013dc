#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Driver benchmark: in one QEMU boot per kernel (default: every installed
# kernel with headers; PT_VM_KERNELS picks), recorded steps/s next to
# count-only steps/s (bench/b00_steps.sh), and user-mode recording next to
# kernel-mode (--kernel) recording (bench/b10_kernel_steps.sh), and post
# on real driver traces of about 10M and 100M steps (bench/b20_post_trace.sh:
# every report's CPU next to the decode-only floor, on the host); with
# PT_VM_ARCH=ppc64le the POWER kernels: b00, and the ptrace backend next to
# a bare PTRACE_SINGLESTEP loop (ppc64le/bench/b10_ptrace_steps.sh; POWER
# has no kernel mode); with PT_VM_ARCH=arm64 the arm64 kernels: b00
# (arm64/bench).  Figures,
# not pass/fail; TCG timings are noisy.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# Multi-threaded TCG: the collector runs on its own host thread, as it would
# on its own core of a real machine.
# POWER and arm64 (PT_VM_ARCH): their own cases.
case ${PT_VM_ARCH:-$(uname -m)} in
ppc64le) cases=$ROOT/tests/vm/ppc64le/bench ;;
arm64 | aarch64) cases=$ROOT/tests/vm/arm64/bench ;;
*) cases=$ROOT/tests/vm/bench ;;
esac
PT_VM_JOBS=${PT_VM_JOBS:-1} PT_VM_ACCEL=${PT_VM_ACCEL:--accel tcg,thread=multi} PT_VM_CASES_DIR=$cases \
	"$ROOT/tests/vm/run.sh" "$@" |
	sed -n 's/^\(vm\[[^]]*\]\): INFO bench: /\1: /p; /FAIL/p'
