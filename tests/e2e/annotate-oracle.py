# SPDX-License-Identifier: GPL-2.0
"""post annotate against valgrind's callgrind and objdump, function by function.

  annotate-oracle.py BINARY SOURCE VG_OUT MIXED ASM SOURCE_VIEW OBJDUMP FUNCTION...

VG_OUT: valgrind --tool=callgrind --dump-instr=yes --collect-jumps=yes of BINARY;
MIXED, ASM, SOURCE_VIEW: post annotate --module BINARY's [--asm | --source] output;
OBJDUMP: objdump -d -M intel --no-show-raw-insn BINARY.  For each FUNCTION:
  * its instructions are objdump's (up to its symbol's size): the same
    addresses, the same mnemonics;
  * every instruction's count is callgrind's Ir at that address;
  * every conditional branch's "taken T of E" has callgrind's taken count
    (the jcnd= lines) and E its count;
  * the interleaved view has each instruction once, under its source line.
And over the whole file SOURCE, every line's count in the source view is
callgrind_annotate --auto's.
"""
import re
import sys
from collections import defaultdict

import cg_annotate
import post_annotate

PREFIXES = {'cs', 'ds', 'es', 'ss', 'fs', 'gs', 'data16', 'addr32', 'rex', 'rex.w', 'lock',
            'bnd', 'notrack', 'rep', 'repz', 'repe', 'repnz', 'repne'}
# the same instruction, named otherwise by capstone and objdump
ALIASES = {'jz': 'je', 'jnz': 'jne', 'movabs': 'mov', 'sal': 'shl', 'cmovz': 'cmove',
           'cmovnz': 'cmovne', 'setz': 'sete', 'setnz': 'setne', 'retq': 'ret'}


def mnemonic(text):
    words = [w for w in text.lower().split() if w not in PREFIXES]
    m = words[0] if words else ''
    return ALIASES.get(m, m)


def objdump_functions(path):
    """name -> [(addr, mnemonic)] of objdump -d."""
    fns, cur = {}, None
    for line in open(path):
        m = re.match(r'^([0-9a-f]+) <(.*)>:$', line)
        if m:
            cur = fns.setdefault(m.group(2), [])
            continue
        m = re.match(r'^\s+([0-9a-f]+):\t(.*)$', line.rstrip('\n'))
        if m and cur is not None:
            cur.append((int(m.group(1), 16), mnemonic(m.group(2))))
        elif not line.strip():
            cur = None
    return fns


def fail(msg):
    sys.exit('annotate-oracle: ' + msg)


def main(binary, source, vg_out, mixed, asm, source_view, objdump, *names):
    mixed, asm = open(mixed).read(), open(asm).read()
    ir, jcnd = cg_annotate.instructions(vg_out, binary)
    code = objdump_functions(objdump)
    for name in names:
        f = post_annotate.function(asm, name)
        insns = f.insns()
        got = [(r.addr, mnemonic(r.text)) for r in insns]
        # objdump goes on to the next symbol: the padding after the function is not its
        want = [(a, m) for a, m in code.get(name, []) if a < f.start + f.size]
        if got != want:
            fail('%s: instructions differ from objdump\'s:\n  post    %s\n  objdump %s'
                 % (name, got, want))
        for r in insns:
            want = ir.get(r.addr, 0)
            if int(r.count) != want:
                fail('%s: %#x %s ran %s times, callgrind says %d' % (name, r.addr, r.text,
                                                                   r.count, want))
            if r.note and r.note.startswith('taken'):
                t, e = map(int, re.findall(r'\d+', r.note))
                want_t = jcnd.get(r.addr, (0, 0))[0]
                if t != want_t or e != int(r.count):
                    fail('%s: %#x %s: %s, callgrind: taken %d of %d' % (name, r.addr, r.text,
                                                                      r.note, want_t, want))
        m = post_annotate.function(mixed, name)
        if [(r.addr, r.count) for r in m.insns()] != [(r.addr, r.count) for r in insns]:
            fail('%s: the interleaved view has other instructions than --asm' % name)
        lines = [r for r in m.rows if r.kind == 'line']
        if not lines or m.rows[0].kind != 'line':
            fail('%s: the interleaved view does not start with a source line' % name)
    # every line of the file, all functions together
    want = cg_annotate.source_lines(
        cg_annotate.annotate(vg_out, '--auto=yes', '--context=1000000'), source)
    got = defaultdict(int)
    for f in post_annotate.functions(open(source_view).read()):
        if f.head('source: ') and f.head('source: ').split(' ')[0] == source:
            for label, n in f.line_counts().items():
                if label.isdigit() and n:
                    got[int(label)] += n
    if dict(got) != want:
        fail('line counts of %s differ from callgrind_annotate\'s:\n  post     %s\n'
             '  callgrind %s' % (source, sorted(got.items()), sorted(want.items())))
    print('annotate-oracle: %d functions, %d lines of %s agree with callgrind and objdump'
          % (len(names), len(want), source))


if __name__ == '__main__':
    main(*sys.argv[1:])
