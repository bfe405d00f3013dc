# SPDX-License-Identifier: GPL-2.0
# The instruction mix per function: its steps by instruction class, or (-m)
# by mnemonic (which disassembles every step: slower).
#   post script insn_mix.py [-m]
import sys
from collections import Counter, defaultdict

by_mnemonic = "-m" in sys.argv[1:]
mix = defaultdict(Counter)      # function -> class (or mnemonic) -> steps


def step(s):
    key = s.insn.split(" ", 1)[0] if by_mnemonic else s.insn_class
    mix[s.function][key] += 1


def end():
    for func, kinds in sorted(mix.items(), key=lambda kv: -sum(kv[1].values())):
        total = sum(kinds.values())
        parts = " ".join(f"{k}={n}" for k, n in kinds.most_common())
        print(f"{total:12d}  {func}: {parts}")
