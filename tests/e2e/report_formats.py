#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One report in its three formats: report_formats.py REPORT TEXT JSON CSV.

The JSON must parse and carry the schema and its version; the CSV's header
must be the JSON's columns and its rows the JSON's rows; and the text's rows
must hold the same numbers and names, row by row (the text read as UTF-8,
a byte that is not one U+FFFD, as JSON and CSV write it).  Prints the JSON's
rows as "OK N rows"; exits 1 with the first difference.
"""
import csv
import json
import sys


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def same(what, want, got):
    if want != got:
        fail(f"{what}: text {want!r}, JSON {got!r}")


def num(s):
    """A text number: "1,234", "+5", "-5", "35.29%"."""
    s = s.replace(",", "").rstrip("%")
    return float(s) if "." in s else int(s)


def name_module(s):
    """ "name [module]" """
    name, _, module = s.rpartition(" [")
    return name, module[:-1]


def rows_of(text):
    return [l for l in text.splitlines() if l and not l.startswith("#")]


def fact(text, prefix):
    for l in text.splitlines():
        if l.startswith(prefix):
            return l[len(prefix):]
    fail(f"no line '{prefix}' in the text")


def text_counts(text, doc):
    rows = rows_of(text)
    total = rows.pop()
    same("total row", num(total.split()[0]), doc["sum"])
    same("total", int(fact(text, "# total: ").split()[0]), doc["total"])
    ncols = len(doc["columns"])
    return [[num(f[0]), num(f[1])] + f[2:] for f in (r.split(None, ncols - 1) for r in rows)]


def text_profile(text, doc):
    same("total", int(fact(text, "# total: ").split()[0]), doc["total"])
    out = []
    for r in rows_of(text):
        f = r.split(None, 5)
        out.append([num(x) for x in f[:5]] + list(name_module(f[5])))
    return out


def text_arc(text, doc):
    """Callers (<) before their function's line, callees (>) after it."""
    out, callers, entry = [], [], None

    def arc(entry, f):
        other = None if f[4] == "(root)" else f[4]
        return [entry[0], entry[1], "caller" if f[3] == "<" else "callee", num(f[0]),
                num(f[1]), None, num(f[2]), None, other]

    for r in rows_of(text):
        f = r.split(None, 4)
        if f[3] == "<":
            callers.append(f)
        elif f[3] == ">":
            out.append(arc(entry, f))
        else:
            f = r.split(None, 5)
            entry = name_module(f[5])
            out += [arc(entry, c) for c in callers]
            callers = []
            out.append([entry[0], entry[1], "function", num(f[0]), num(f[1]), num(f[2]),
                        num(f[3]), num(f[4]), entry[0]])
    return out


def text_tree(text, doc):
    inverted = doc["tree"] == "inverted"
    out = []
    for r in rows_of(text):
        f = r.split(None, 4 if inverted else 5)
        if inverted:
            f = f[:3] + [None] + f[3:]
        name = f[5].strip()
        if name.endswith("]") and " [" in name:
            name = name_module(name)[0]  # the module where the tree enters it
        out.append([num(f[0]), num(f[1]), num(f[2]), f[3] if f[3] is None else num(f[3]),
                    num(f[4]), None if name == "(root)" else name])
    return out


def text_diff(text, doc):
    out = []
    for r in rows_of(text):
        f = r.split(None, 8)
        status = f[3] if f[3] in ("new", "gone") else "both"
        ratio = None if status != "both" else float(f[3])
        name, module = name_module(f[8])
        out.append([name, module, status, num(f[0]), num(f[1]), num(f[2]), ratio, num(f[4]),
                    num(f[5]), num(f[6]), num(f[7])])
    return out


def text_info(text, doc):
    for key in ("steps", "lost", "threads", "processes", "tasks", "streams"):
        same(key, int(fact(text, f"{key}:").split()[0]), doc[key])
    same("state", fact(text, "state:").strip(), doc["state"])
    same("backend", fact(text, "backend:").strip(), doc["backend"])
    out = []
    for l in text.splitlines():
        if l.startswith("  ") and " steps " in l and not l.startswith("  all "):
            f = l.split()
            out.append([f[0], num(f[1]), num(f[3]), num(f[5]) if len(f) > 5 else None])
    return out


# The JSON row's cells the text shows, in the text parser's order.
PICK = {
    "counts": lambda row, cols: row,
    "profile": lambda row, cols: row,
    "arc": lambda row, cols: row[:9],
    "tree": lambda row, cols: row[2:8],
    "diff": lambda row, cols: row[:12] + [row[12]],
    "info": lambda row, cols: row[:4],
}
PARSE = {"counts": text_counts, "profile": text_profile, "arc": text_arc, "tree": text_tree,
         "diff": text_diff, "info": text_info}


def csv_cell(v):
    return "" if v is None else ("true" if v else "false") if isinstance(v, bool) else v


def check_csv(doc, path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    same("CSV header", rows[0], doc["columns"])
    if len(rows) - 1 != len(doc["rows"]):
        fail(f"CSV has {len(rows) - 1} rows, JSON {len(doc['rows'])}")
    for i, (c, j) in enumerate(zip(rows[1:], doc["rows"])):
        for k, (cv, jv) in enumerate(zip(c, j)):
            jv = csv_cell(jv)
            ok = float(cv) == jv if isinstance(jv, (int, float)) and cv else cv == jv
            if not ok:
                fail(f"CSV row {i} column {doc['columns'][k]}: {cv!r}, JSON {jv!r}")


def main():
    report, text_path, json_path, csv_path = sys.argv[1:5]
    with open(json_path, encoding="utf-8") as f:
        doc = json.load(f)
    same("schema", "pitrace-report", doc.get("schema"))
    same("version", 1, doc.get("version"))
    same("report", report, doc.get("report"))
    check_csv(doc, csv_path)
    with open(text_path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    # diff's text says calls B-A only
    jrows = [PICK[report](r, doc["columns"]) for r in doc["rows"]]
    if report == "diff":
        jrows = [r[:10] + [r[12]] for r in jrows]
    trows = PARSE[report](text, doc)
    if len(trows) != len(jrows):
        fail(f"text has {len(trows)} rows, JSON {len(jrows)}")
    for i, (t, j) in enumerate(zip(trows, jrows)):
        same(f"row {i}", t, j)
    print(f"OK {len(jrows)} rows")


main()
