#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Damage a trace directory in one exact way, for tests of what post checks.

  trace_edit.py DIR flip FILE OFFSET              xor a byte with 0x10
  trace_edit.py DIR mmap-move                     the first MMAP 0x1000 higher
  trace_edit.py DIR insert-step STREAM K [redo]   a 1-byte step before record K of STREAM
  trace_edit.py DIR delete-step STREAM K [redo]   delete record K (a step) of STREAM
  trace_edit.py DIR count STREAM K N [redo]       a COUNT N record before record K
  trace_edit.py DIR dup-last-block STREAM         its last CHECK block written twice
  trace_edit.py DIR set-totals STEPS              the header's TOTALS, its CHECK redone

redo: crc (every CHECK's CRC redone), or all (also END's counts, the CHECK
block numbers and the header's TOTALS): what someone who wanted to hide
the edit would do.
"""
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz"))
import pack  # noqa: E402  (records, ctl, uleb)


def read(path):
    with open(path, "rb") as f:
        return bytearray(f.read())


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def redo_stream(data, counts):
    """The stream with each CHECK's CRC (and with counts END and block numbers) redone."""
    out = bytearray(data[:32])
    blk, steps, counted, blocks = 32, 0, 0, 0
    for off, end, kind, t, payload in pack.records(bytes(data)):
        if kind == "step":
            steps += 1
        elif t == 11:
            counted += pack.uleb_get(payload, 0)[0]
        if kind == "ctl" and t == 10 and counts:
            out += pack.ctl(10, pack.uleb(steps) + pack.uleb(counted))
            continue
        if kind == "ctl" and t == 9:
            crc = struct.pack("<I", zlib.crc32(out[blk:]))
            rest = payload[4:] if not counts else pack.uleb(blocks)
            out += pack.ctl(9, crc + rest)
            blocks += 1
            blk = len(out)
            continue
        out += data[off:end]
    return out, steps, counted


def redo_records(path, totals=None):
    """A header or tasks file with every CHECK record's CRC redone (and TOTALS set)."""
    data = read(path)
    off = 32
    tasks = data[9] == 2
    while off + 8 <= len(data):
        t, _, size = struct.unpack("<HHI", data[off:off + 8])
        if t == 8 and not tasks and totals:
            data[off + 8:off + 16] = struct.pack("<Q", totals[0])
            if size >= 40:
                data[off + 32:off + 40] = struct.pack("<Q", totals[1])
        if t == 16 and not tasks:
            data[off + 8:off + 12] = struct.pack("<I", zlib.crc32(data[:off]))
        if t == 7 and tasks:
            data[off + 32:off + 36] = struct.pack("<I", zlib.crc32(data[:off]))
        off += size
    write(path, data)


def edit_stream(d, name, fn, redo):
    path = os.path.join(d, name)
    data = read(path)
    recs = list(pack.records(bytes(data)))
    data = fn(data, recs)
    if redo:
        data, _, _ = redo_stream(data, redo == "all")
    write(path, data)
    if redo == "all":
        steps = counted = 0
        for s in sorted(os.listdir(d)):
            if s.startswith("steps."):
                _, n, c = redo_stream(read(os.path.join(d, s)), True)
                steps, counted = steps + n, counted + c
        redo_records(os.path.join(d, "header"), (steps, counted))


def main():
    d, op, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if op == "flip":
        path = os.path.join(d, args[0])
        data = read(path)
        data[int(args[1], 0)] ^= 0x10
        write(path, data)
    elif op == "mmap-move":
        path = os.path.join(d, "tasks")
        data = read(path)
        off = 32
        while off + 8 <= len(data):
            t, _, size = struct.unpack("<HHI", data[off:off + 8])
            if t == 5:
                start = struct.unpack("<Q", data[off + 32:off + 40])[0]
                data[off + 32:off + 40] = struct.pack("<Q", start + 0x1000)
                break
            off += size
        write(path, data)
    elif op in ("insert-step", "delete-step", "count"):
        k = int(args[1])
        redo = args[3] if op == "count" and len(args) > 3 else args[2] if op != "count" and \
            len(args) > 2 else None

        def fn(data, recs):
            at, end = recs[k][0], recs[k][1]
            if op == "insert-step":
                return data[:at] + b"\x01" + data[at:]
            if op == "delete-step":
                assert recs[k][2] == "step", "record K is not a step"
                return data[:at] + data[end:]
            return data[:at] + pack.ctl(11, pack.uleb(int(args[2]))) + data[at:]
        edit_stream(d, args[0], fn, redo)
    elif op == "dup-last-block":
        def fn(data, recs):
            checks = [r for r in recs if r[2] == "ctl" and r[3] == 9]
            start = checks[-2][1] if len(checks) > 1 else 32
            return data + data[start:checks[-1][1]]
        edit_stream(d, args[0], fn, None)
    elif op == "set-totals":
        redo_records(os.path.join(d, "header"), (int(args[0]), 0))
    else:
        sys.exit(f"trace_edit.py: unknown edit {op}")


if __name__ == "__main__":
    main()
