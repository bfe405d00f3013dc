#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# e2e: serial (see tests/run-e2e.sh)
# Exports as people open them.  Chrome JSON: M events name every process
# and thread (their comms), B/E pairs match per thread, --clock steps makes
# a step a nanosecond (displayTimeUnit ns: durations read as steps), and a
# window keeps only its frames (those open at its start begin there, those
# open at its end end there); headless Chromium parses it too.  Folded
# stacks: --prefix comm|pid|tid keeps processes and threads apart and adds
# up to the stacks without it.  The SVG flame graph: well-formed, every
# frame as wide as its steps (by construction on arc_basic.S), and in
# headless Chromium: the DOM after its script, search and zoom from the
# URL, hover and click by real events, and a screenshot whose pixels are
# the frames' colours where the layout puts them.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"

arc_record basic "$PROGS/arc_basic"
arc_record labels "$PROGS/labels"
arc_record threads "$PROGS/named_threads"
"$PITRACE" record --follow-fork -o forkexec -- "$PROGS/pt_forkexec" "$PROGS/countloop" \
	>/dev/null 2>&1 || fail "record pt_forkexec"

# chrome_check JSON TRACE: names, pairs, order (chrome-check below)
chrome_check() {
	"$POST" -i "$2" counts --by thread | awk '$1 ~ /^[0-9]+$/ && NF == 5 { print $3, $4, $5 }' |
		tr -d '()' >"$1.threads"
	python3 - "$1" "$1.threads" <<'PY' || fail "Chrome JSON $1"
import json, sys
doc = json.load(open(sys.argv[1]))
ev = doc['traceEvents']
want = {int(t): (int(p), c) for p, t, c in (l.split() for l in open(sys.argv[2]))}
names = {(e['pid'], e['tid'], e['name']): e['args']['name'] for e in ev if e['ph'] == 'M'}
stacks, seen = {}, set()
for e in ev:
    if e['ph'] not in 'BE':
        continue
    seen.add(e['tid'])
    s = stacks.setdefault(e['tid'], [])
    if s and e['ts'] < s[-1][1]:
        sys.exit('%s at %s goes back in time' % (e['name'], e['ts']))
    if e['ph'] == 'B':
        s.append((e['name'], e['ts']))
    else:
        assert s and s.pop()[0] == e['name'], 'unmatched E for %s at %s' % (e['name'], e['ts'])
assert all(not s for s in stacks.values()), 'unclosed B events'
assert seen == set(want), 'threads %s, the trace has %s' % (sorted(seen), sorted(want))
for tid, (pid, comm) in want.items():
    assert names.get((pid, tid, 'thread_name')) == comm, (tid, names)
    assert (pid, pid, 'process_name') in names, 'no process_name for %d' % pid
print('%s: %d events, %d threads named' % (sys.argv[1], len(ev), len(want)))
PY
}
for t in basic threads forkexec; do
	"$POST" -i $t export --format chrome -o $t.json || fail "export chrome $t"
	chrome_check $t.json $t
done
python3 - forkexec.json <<'PY' || fail "process names"
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
procs = sorted(e['args']['name'] for e in ev if e['name'] == 'process_name')
assert procs == ['countloop', 'pt_forkexec'], procs
PY
python3 - threads.json <<'PY' || fail "thread names"
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
names = sorted(e['args']['name'] for e in ev if e['name'] == 'thread_name')
assert names == ['named_threads', 'pt-worker-1', 'pt-worker-2'], names
PY

# --clock steps: a step is a nanosecond, so a frame lasts its Cum (labels.S:
# _start 23 steps, alpha 3, beta 14).
"$POST" -i labels export --format chrome --clock steps -o steps.json || fail "--clock steps"
python3 - steps.json <<'PY' || fail "--clock steps"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc['displayTimeUnit'] == 'ns' and doc['otherData']['clock'].startswith('steps'), doc
open_, lasted = {}, {}
for e in doc['traceEvents']:
    if e['ph'] == 'B':
        open_[e['name']] = e['ts']
    elif e['ph'] == 'E':
        lasted[e['name']] = round((e['ts'] - open_.pop(e['name'])) * 1000)
assert lasted == {'_start': 23, 'alpha': 3, 'beta': 14}, lasted
PY
# A window: steps 8..12 are in beta, called from _start: both begin at 8 and end at 13.
"$POST" -i labels export --format chrome --clock steps --from 8 --to 12 -o win.json || fail "window"
python3 - win.json <<'PY' || fail "the window's frames"
import json, sys
got = [(e['name'], e['ph'], round(e['ts'] * 1000)) for e in json.load(open(sys.argv[1]))['traceEvents']
       if e['ph'] in 'BE']
assert got == [('_start', 'B', 8), ('beta', 'B', 8), ('beta', 'E', 13), ('_start', 'E', 13)], got
PY
# A window of a real trace: matched pairs, inside it, its calls only.
from=60000 to=90000
"$POST" -i forkexec export --format chrome --clock steps --from $from --to $to -o fwin.json ||
	fail "window of forkexec"
"$POST" -i forkexec flow --from $from --to $to >fwin.flow || fail "flow --from --to"
python3 - fwin.json fwin.flow $from $to <<'PY' || fail "the window of a real trace"
import json, sys
lo, hi = int(sys.argv[3]), int(sys.argv[4])
ev = [e for e in json.load(open(sys.argv[1]))['traceEvents'] if e['ph'] in 'BE']
assert ev, 'no events in the window'
stacks = {}
for e in ev:
    ts = round(e['ts'] * 1000)
    assert lo <= ts <= hi + 1, '%s at step %d, outside %d..%d' % (e['name'], ts, lo, hi)
    s = stacks.setdefault(e['tid'], [])
    if e['ph'] == 'B':
        s.append(e['name'])
    else:
        assert s and s.pop() == e['name'], 'unmatched E for %s' % e['name']
assert all(not s for s in stacks.values()), 'unclosed B events'
# every entry post flow lists in the window is a B event after the window's start
entries = sum(1 for l in open(sys.argv[2]) if not l.startswith('#') and l.split()[3] in '>!')
began = sum(1 for e in ev if e['ph'] == 'B' and round(e['ts'] * 1000) > lo)
assert began == entries, 'B events after the start %d, entries in post flow %d' % (began, entries)
print('window %d..%d: %d events, %d entries' % (lo, hi, len(ev), entries))
PY

# Folded --prefix: the prefixes are the trace's processes and threads, and
# without them the stacks add up to the unprefixed ones.
"$POST" -i forkexec export --format folded -o plain.folded || fail "folded"
for p in comm pid tid; do
	"$POST" -i forkexec export --format folded --prefix $p -o $p.folded || fail "folded --prefix $p"
done
"$POST" -i threads export --format folded --prefix tid -o threads.folded || fail "folded threads"
python3 - plain.folded comm.folded pid.folded tid.folded threads.folded forkexec.json threads.json <<'PY' ||
import json, sys
from collections import Counter
def read(path):
    c = Counter()
    for line in open(path):
        stack, n = line.rstrip('\n').rsplit(' ', 1)
        c[stack] += int(n)
    return c
plain = read(sys.argv[1])
def threads(path):
    return {(e['pid'], e['tid'], e['args']['name']) for e in json.load(open(path))['traceEvents']
            if e['name'] == 'thread_name'}
fe = threads(sys.argv[6])
want = {'comm': {c for _, _, c in fe}, 'pid': {'%s-%d' % (c, p) for p, _, c in fe},
        'tid': {'%s-%d/%d' % (c, p, t) for p, t, c in fe}}
for path, kind in zip(sys.argv[2:5], ('comm', 'pid', 'tid')):
    c = read(path)
    prefixes = {s.split(';', 1)[0] for s in c}
    assert prefixes == want[kind], (kind, prefixes, want[kind])
    merged = Counter()
    for s, n in c.items():
        merged[s.split(';', 1)[1]] += n
    assert merged == plain, '%s: without the prefix the stacks differ' % kind
# the fork: both processes' _start stacks, apart
assert sum(1 for s in read(sys.argv[4]) if s.endswith(';_start')) == 2
tt = {'%s-%d/%d' % (c, p, t) for p, t, c in threads(sys.argv[7])}
assert {s.split(';', 1)[0] for s in read(sys.argv[5])} == tt, 'threads: one prefix a thread'
PY
	fail "folded --prefix"
run_expect_status "--prefix for chrome" 2 "$POST" -i basic export --format chrome --prefix pid -o x 2>err
expect_eq "--prefix for chrome" "post: error: export: --prefix is for --format folded and svg" "$(cat err)"

# The SVG: a frame per call path, as wide as its steps (arc_basic.S: _start
# 23 in all, main 19, f 12 of which g 6, main's own g 3), callees from
# their caller's left edge in name order, its own steps the rest.
"$POST" -i basic export --format svg -o basic.svg || fail "export svg"
cat >svg_frames.py <<'PY'
import re, sys, xml.dom.minidom
def frames(path):
    """(name, start, steps, depth, x, width, fill, label) of each frame; the svg's attributes."""
    doc = xml.dom.minidom.parse(path)
    root = doc.documentElement
    out = []
    for g in root.getElementsByTagName('g'):
        if g.getAttribute('class').split()[:1] != ['f']:
            continue
        title = g.getElementsByTagName('title')[0].firstChild.data
        r = g.getElementsByTagName('rect')[0]
        t = g.getElementsByTagName('text')[0]
        out.append(dict(name=title.split('\n')[0], s=int(g.getAttribute('data-s')),
                        n=int(g.getAttribute('data-n')), d=int(g.getAttribute('data-d')),
                        x=float(r.getAttribute('x')), w=float(r.getAttribute('width')),
                        y=float(r.getAttribute('y')), fill=r.getAttribute('fill'),
                        label=t.firstChild.data if t.firstChild else '',
                        cls=g.getAttribute('class'), title=title))
    return root, out
PY
python3 - basic.svg <<'PY' || fail "the SVG's frames"
import sys
sys.path.insert(0, '.')
from svg_frames import frames
root, fs = frames(sys.argv[1])
total = int(root.getAttribute('data-total'))
assert total == 23, total
got = sorted((f['d'], f['name'], f['s'], f['n']) for f in fs)
want = [(0, '_start', 0, 23), (1, 'main', 0, 19), (2, 'f', 0, 12), (2, 'g', 12, 3), (3, 'g', 0, 6)]
assert got == want, got
for f in fs:
    assert abs(f['w'] - f['n'] * 1180 / total) < 0.01, f
    assert abs(f['x'] - (10 + f['s'] * 1180 / total)) < 0.01, f
    assert f['label'] == f['name'], f
    assert f['title'].endswith('self %d' % {'_start': 4, 'main': 4, 'f': 6, 'g': f['n']}[f['name']]), f
PY

command -v chromium >/dev/null || skip "chromium is not installed (make deps)"
CHROMIUM=(chromium --headless --no-sandbox --disable-gpu --hide-scrollbars
	--user-data-dir="$TMP/chromium" --virtual-time-budget=10000)
# browse URL OUT: the DOM after the page's scripts ran
browse() {
	timeout 120 "${CHROMIUM[@]}" --allow-file-access-from-files --dump-dom "$1" >"$2" 2>"$TMP/chromium.err" ||
		{ tail -5 "$TMP/chromium.err"; fail "chromium $1"; }
	[ -s "$2" ] || fail "chromium shows nothing of $1"
}
# The DOM Chromium made: the same frames; search and zoom from the URL.
browse "file://$TMP/basic.svg" dom.svg
browse "file://$TMP/basic.svg?s=%5Eg%24" search.svg
browse "file://$TMP/basic.svg?x=0&y=2" zoom.svg
python3 - basic.svg dom.svg search.svg zoom.svg <<'PY' || fail "the SVG in Chromium"
import re, sys
sys.path.insert(0, '.')
from svg_frames import frames
_, mine = frames(sys.argv[1])
_, dom = frames(sys.argv[2])
key = lambda f: (f['name'], f['s'], f['n'], f['d'], round(f['x'], 2), round(f['w'], 2))
assert sorted(map(key, mine)) == sorted(map(key, dom)), 'Chromium\'s DOM has other frames'
text = open(sys.argv[3]).read()
assert re.search(r'<text id="matched"[^>]*>Matched: 9 steps, 39\.13%</text>', text), 'search ?s=^g$'
_, s = frames(sys.argv[3])
assert sorted(f['name'] for f in s if 'm' in f['cls'].split()) == ['g', 'g'], 'matched frames'
_, z = frames(sys.argv[4])
by = {(f['name'], f['d']): f for f in z}
f, g = by[('f', 2)], by[('g', 3)]
assert f['x'] == 10 and f['w'] == 1180, ('zoomed frame', f)
assert abs(g['w'] - 590) < 0.01 and g['x'] == 10, ('its callee, 6 of its 12 steps', g)
for name in ('_start', 'main'):
    a = by[(name, {'_start': 0, 'main': 1}[name])]
    assert 'p' in a['cls'].split() and a['w'] == 1180, ('caller', a)
assert 'h' in by[('g', 2)]['cls'].split(), 'main\'s own g is hidden when zoomed into f'
print('Chromium: frames, search and zoom agree')
PY
# Hover and click by real mouse events (the page next to the SVG reads it).
cat >probe.html <<'EOF'
<!DOCTYPE html><html><body><pre id="out">not loaded</pre>
<object id="o" data="basic.svg" type="image/svg+xml" width="1200" height="200"></object>
<script>
document.getElementById("o").addEventListener("load", function () {
	var d = this.contentDocument, out = [];
	var f = [].filter.call(d.querySelectorAll("g.f"), function (g) {
		return g.firstChild.textContent.split("\n")[0] === "f";
	})[0];
	f.children[1].dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
	out.push("details=" + d.getElementById("details").textContent);
	f.children[1].dispatchEvent(new MouseEvent("click", { bubbles: true }));
	out.push("width=" + f.children[1].getAttribute("width"));
	out.push("unzoom=" + d.getElementById("unzoom").getAttribute("class"));
	out.push("url=" + this.contentWindow.location.search);
	document.getElementById("out").textContent = out.join(" | ");
});
</script></body></html>
EOF
browse "file://$TMP/probe.html" probe.dom
grep -q '<pre id="out">details=f \[arc_basic\] 12 steps (52.17%), self 6 | width=1180.00 | unzoom=button | url=?x=0&amp;y=2</pre>' probe.dom ||
	fail "hover and click: $(grep -o '<pre id="out">.*</pre>' probe.dom)"

# A screenshot: where the layout puts each wide frame, its colour (the
# middle of the frame, away from the label's text).
timeout 120 "${CHROMIUM[@]}" --screenshot="$TMP/basic.png" --window-size=1200,$(sed -n \
	's/.*<svg[^>]* height="\([0-9]*\)".*/\1/p' basic.svg) "file://$TMP/basic.svg" \
	>/dev/null 2>"$TMP/chromium.err" || { tail -5 "$TMP/chromium.err"; fail "screenshot"; }
[ -s basic.png ] || fail "no screenshot"
if command -v convert >/dev/null; then
	python3 - basic.svg <<'PY' >pixels || fail "the frames' pixels"
import sys
sys.path.insert(0, '.')
from svg_frames import frames
for f in frames(sys.argv[1])[1]:
    print(int(f['x'] + f['w'] - 4), int(f['y'] + 3), f['fill'].replace(' ', ''), f['name'])
PY
	while read -r x y fill name; do
		got=$(convert basic.png -format "%[pixel:p{$x,$y}]" info: | sed 's/^srgb/rgb/')
		[ "$got" = "$fill" ] || fail "screenshot: $name's frame at $x,$y is $got, its fill $fill"
	done <pixels
else
	echo "no ImageMagick: the screenshot's pixels are not checked"
fi

# The Chrome JSON in Chromium: it parses, every thread's B/E pairs match, names arrive.
cat >chrome.html <<'EOF'
<!DOCTYPE html><html><body><pre id="out">not loaded</pre><script>
fetch("forkexec.json").then(function (r) { return r.json(); }).then(function (doc) {
	var open = {}, names = 0, pairs = 0, bad = 0;
	doc.traceEvents.forEach(function (e) {
		var s = open[e.tid] = open[e.tid] || [];
		if (e.ph === "M") names++;
		else if (e.ph === "B") s.push(e.name);
		else if (e.ph === "E" && s.pop() === e.name) pairs++;
		else bad++;
	});
	Object.keys(open).forEach(function (t) { bad += open[t].length; });
	document.getElementById("out").textContent = "unit=" + doc.displayTimeUnit +
		" names=" + names + " pairs=" + pairs + " bad=" + bad;
}, function (err) { document.getElementById("out").textContent = "error " + err; });
</script></body></html>
EOF
browse "file://$TMP/chrome.html" chrome.dom
pairs=$(python3 -c "import json,sys; print(sum(e['ph'] == 'E' for e in json.load(open('forkexec.json'))['traceEvents']))")
grep -q "<pre id=\"out\">unit=ns names=4 pairs=$pairs bad=0</pre>" chrome.dom ||
	fail "Chromium reads the Chrome JSON otherwise: $(grep -o '<pre id="out">.*</pre>' chrome.dom), $pairs pairs"
echo PASS
