# SPDX-License-Identifier: GPL-2.0
"""Read `post annotate` output (docs/man/post-annotate.1.md), for tests that compare it
with oracles: callgrind_annotate's line counts, valgrind's jumps, objdump's code.

functions(text) -> [Function]: each with .name, .module, .header (its '#' lines), .rows.
A row: .kind ('line', 'insn', 'gap'), .count (None: not shown, '.': no code),
.pct, .hot, .line (label: '27' or 'file.h:27'), .addr (int), .gutter, .text, .note.
The columns are where the function's column line puts their names.
"""
import re
import sys

HEAD = re.compile(r'^# function (.*?) \[?([^\]\[]*|\[[^\]]*\])\]?(?: at 0x([0-9a-f]+), (\d+) bytes)?$')
NOTE = re.compile(r'  # (taken \d+ of \d+|-> .*)$')


class Row:
    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __repr__(self):
        return 'Row(%r)' % self.__dict__


class Function:
    def __init__(self, name, module, start, size):
        self.name, self.module, self.start, self.size = name, module, start, size
        self.header, self.rows = [], []
        self.cols = None

    def line_counts(self):
        """label -> count of the source rows that carry their line's count."""
        return {r.line: int(r.count) for r in self.rows
                if r.kind == 'line' and r.count not in (None, '.')}

    def insns(self):
        return [r for r in self.rows if r.kind == 'insn']

    def head(self, prefix):
        """The header line starting '# PREFIX', without it, or None."""
        for h in self.header:
            if h.startswith('# ' + prefix):
                return h[len('# ' + prefix):]
        return None


def columns(header):
    """Where the fields end (count, percent, line, address) and the text starts."""
    cols = {}
    for name in ('count', 'percent', 'line', 'address'):
        m = re.search(r'\b%s\b' % name, header)
        if m:
            cols[name] = m.end()
    m = re.search(r'(source / instruction|source|instruction)$', header)
    cols['text'] = m.start()
    return cols


def parse_row(line, c):
    count = line[:c['count']].strip() or None
    pct = line[c['count']:c['percent']].strip() or None
    hot = line[c['percent'] + 1:c['percent'] + 2] == '*'
    label = line[c['percent'] + 2:c['line']].strip() if 'line' in c else ''
    addr = line[c.get('line', c['percent'] + 2):c['address']].strip() if 'address' in c else ''
    gutter_from = c.get('address', c.get('line', c['percent'] + 2)) + 2
    gutter = line[gutter_from:c['text']]
    text = line[c['text']:]
    note = None
    m = NOTE.search(text)
    if m:
        text, note = text[:m.start()], m.group(1)
    if addr:
        kind = 'insn'
    elif label == '...':
        kind = 'gap'
    else:
        kind = 'line'
    return Row(kind=kind, count=count, pct=pct, hot=hot, line=label or None,
               addr=int(addr.rstrip(':'), 16) if addr else None, gutter=gutter.rstrip(' '),
               text=text, note=note)


def functions(text):
    out = []
    for line in text.splitlines():
        m = HEAD.match(line)
        if m:
            out.append(Function(m.group(1), m.group(2),
                                int(m.group(3), 16) if m.group(3) else None,
                                int(m.group(4)) if m.group(4) else None))
            out[-1].header.append(line)
            continue
        if not out:
            continue
        f = out[-1]
        if line.startswith('#') and f.cols is None and re.match(r'^#\s*count\b', line):
            f.cols = columns(line)
        elif line.startswith('#'):
            f.header.append(line)
        elif f.cols is None:
            sys.exit('post annotate: a row before the column line: %r' % line)
        else:
            f.rows.append(parse_row(line, f.cols))
    return out


def function(text, name):
    fs = [f for f in functions(text) if f.name == name]
    if len(fs) != 1:
        sys.exit('post annotate: %d functions named %s' % (len(fs), name))
    return fs[0]
