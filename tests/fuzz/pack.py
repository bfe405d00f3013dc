#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Pack a trace directory into one input of the post fuzzer (tests/fuzz/README.md),
or unpack one into directories.

  pack.py pack DIR [--b DIR2] [--sym PATH=FILE]... [--flags N] [--report N]
               [--decompress] [--skip NAME]... [--max-stream BYTES] [--trim-pad]
               [--hostile KIND:NAME] -o OUT
  pack.py unpack IN OUTDIR      (OUTDIR/a, OUTDIR/b, OUTDIR/sym; zstd left flagged)

--decompress stores a zstd step stream decompressed, flagged for the fuzzer
to compress again when it writes the trace, so that mutations reach its
records; without it the compressed bytes are kept as they are.
--max-stream keeps a long stream's first records only (whole ones, with an
END and a CHECK whose counts and CRC are right, and the header's TOTALS
and CHECK redone), for a small seed from a real trace; --trim-pad drops
the header's padding (room for rewriting it, not data).  --hostile makes
file NAME of the trace no regular file when the fuzzer writes it: KIND is
one of HOSTILE_KINDS (fuzz_post.c's enum hostile_kind, in its order).
"""
import argparse
import os
import struct
import subprocess
import sys
import zlib

TRACE_FILES = ("header", "tasks", "vdso", "kallsyms", "modules")
HOSTILE_KINDS = ("fifo", "link-fifo", "link-device", "link-loop", "socket", "directory",
                 "sparse", "link-copy")
PT_FLAG_ZSTD = 1


def uleb(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def entry(name, data, compress=False):
    raw = name.encode()
    if not 0 < len(raw) < 128:
        sys.exit(f"pack.py: name too long: {name}")
    return bytes([len(raw) | (0x80 if compress else 0)]) + raw + uleb(len(data)) + data


def uleb_get(data, off):
    n = shift = 0
    while True:
        b = data[off]
        off += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, off


def records(data):
    """(offset, end, kind, ctl_type, payload) of each step-stream record after the file header."""
    off = 32
    while off < len(data):
        b = data[off]
        if b < 0x80:
            yield off, off + 1, "step", 0, b""
            off += 1
        elif b & 0xC0 == 0x80:
            end = off + 1
            if b & 0x20:
                _, end = uleb_get(data, end)
            yield off, end, "step", 0, b""
            off = end
        else:
            n, p = uleb_get(data, off + 1)
            yield off, p + n, "ctl", b & 0x3F, data[p:p + n]
            off = p + n


def ctl(t, payload):
    return bytes([0xC0 | t]) + uleb(len(payload)) + payload


def cut_stream(data, limit):
    """The stream's records up to about limit bytes, ended with END and CHECK; (bytes, steps, counted)."""
    out = bytearray(data[:32])
    steps = counted = blocks = 0
    blk = 32
    for off, end, kind, t, payload in records(data):
        if len(out) + (end - off) > limit or (kind == "ctl" and t == 10):
            break
        if kind == "ctl" and t == 9:  # CHECK: recomputed over what is kept
            out += ctl(9, struct.pack("<I", zlib.crc32(out[blk:])) + uleb(blocks))
            blocks += 1
            blk = len(out)
            continue
        if kind == "step":
            steps += 1
        elif t == 11:
            counted += uleb_get(payload, 0)[0]
        out += data[off:end]
    out += ctl(10, uleb(steps) + uleb(counted))
    out += ctl(9, struct.pack("<I", zlib.crc32(out[blk:])) + uleb(blocks))
    return bytes(out), steps, counted


def fix_header(data, steps, counted, trim_pad):
    """The header with TOTALS steps and counted set (when not None), its CHECK redone."""
    out = bytearray(data[:32])
    off = 32
    while off + 8 <= len(data):
        t, _, size = struct.unpack("<HHI", data[off:off + 8])
        rec = bytearray(data[off:off + size])
        off += size
        if t == 8 and steps is not None:  # TOTALS
            rec[8:16] = struct.pack("<Q", steps)
            if len(rec) >= 40:
                rec[32:40] = struct.pack("<Q", counted)
        elif t == 16:  # CHECK
            rec[8:12] = struct.pack("<I", zlib.crc32(out))
        elif t == 15 and trim_pad:  # PAD
            continue
        out += rec
    return bytes(out)


def trace_entries(d, prefix, decompress, skip, max_stream=0, trim_pad=False):
    out = []
    cut = False
    steps = counted = 0
    streams = {}
    for name in sorted(os.listdir(d)):
        if not name.startswith("steps.") or name in skip:
            continue
        with open(os.path.join(d, name), "rb") as f:
            data = f.read()
        zstd = len(data) > 32 and int.from_bytes(data[28:32], "little") & PT_FLAG_ZSTD
        if zstd and (decompress or max_stream):
            data = data[:32] + subprocess.run(["zstd", "-dcq"], input=data[32:], check=True,
                                              stdout=subprocess.PIPE).stdout
        if max_stream and len(data) > max_stream:
            data, n, c = cut_stream(data, max_stream)
            cut = True
        else:
            n = c = 0
            for _, _, kind, t, payload in records(data):
                n += kind == "step"
                c += uleb_get(payload, 0)[0] if kind == "ctl" and t == 11 else 0
        steps += n
        counted += c
        streams[name] = (data, zstd and (decompress or max_stream))
    for name in sorted(os.listdir(d)):
        if name in skip or not (name in TRACE_FILES or name.startswith("steps.")):
            continue
        compress = False
        if name in streams:
            data, compress = streams[name]
        else:
            with open(os.path.join(d, name), "rb") as f:
                data = f.read()
            if name == "header" and (cut or trim_pad):
                data = fix_header(data, steps if cut else None, counted, trim_pad)
        out.append(entry(prefix + name, data, bool(compress)))
    return out


def pack(args):
    parts = trace_entries(args.dir, "", args.decompress, args.skip, args.max_stream,
                          args.trim_pad)
    if args.b:
        parts += trace_entries(args.b, "b/", args.decompress, args.skip, args.max_stream,
                               args.trim_pad)
    for spec in args.sym:
        path, _, file = spec.partition("=")
        with open(file, "rb") as f:
            parts.append(entry("sym/" + path.lstrip("/"), f.read()))
    if args.hostile:
        kind, _, name = args.hostile.partition(":")
        parts.append(entry("hostile", bytes([HOSTILE_KINDS.index(kind)]) + name.encode()))
    with open(args.o, "wb") as f:
        f.write(bytes([args.flags & 0xFF, args.report & 0xFF]) + b"".join(parts))


def unpack(args):
    with open(args.input, "rb") as f:
        data = f.read()
    off = 2
    print(f"flags {data[0]:#x} report {data[1]}")
    while off < len(data):
        nlen, compress = data[off] & 0x7F, data[off] & 0x80
        name = data[off + 1:off + 1 + nlen].decode(errors="replace")
        off += 1 + nlen
        n = shift = 0
        while off < len(data):
            b = data[off]
            off += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        body = data[off:off + n]
        off += n
        where = "sym" if name.startswith("sym/") else "b" if name.startswith("b/") else "a"
        rel = name.split("/", 1)[1] if where != "a" else name
        path = os.path.join(args.outdir, where, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if compress and len(body) > 32:
            body = body[:32] + subprocess.run(["zstd", "-cq"], input=body[32:], check=True,
                                              stdout=subprocess.PIPE).stdout
        with open(path, "wb") as f:
            f.write(body)
        print(f"{name}: {len(body)} bytes{' (compressed)' if compress else ''}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack")
    p.add_argument("dir")
    p.add_argument("--b")
    p.add_argument("--sym", action="append", default=[])
    p.add_argument("--skip", action="append", default=[])
    p.add_argument("--flags", type=int, default=0)
    p.add_argument("--report", type=int, default=0)
    p.add_argument("--decompress", action="store_true")
    p.add_argument("--max-stream", type=int, default=0)
    p.add_argument("--trim-pad", action="store_true")
    p.add_argument("--hostile")
    p.add_argument("-o", required=True)
    u = sub.add_parser("unpack")
    u.add_argument("input")
    u.add_argument("outdir")
    args = ap.parse_args()
    pack(args) if args.cmd == "pack" else unpack(args)


if __name__ == "__main__":
    main()
