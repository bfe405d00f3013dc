// SPDX-License-Identifier: GPL-2.0
/*
 * post export --format svg: a flame graph as one self-contained SVG file
 * that browsers open: a frame per call path of the merged call tree
 * (flame.h), as wide as its steps, children above their caller in name
 * order; hovering shows a frame's name, steps and percent, a click zooms
 * into it, Ctrl-F (or "Search") highlights the frames whose names match a
 * regular expression and says how many steps they hold.  ?s=REGEX and
 * ?x=START&y=DEPTH in the file's URL search and zoom as it opens, and the
 * URL follows what is shown, so a view can be shared.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "post/export.h"
#include "util/log.h"

#define SVG_WIDTH 1200
#define SVG_XPAD 10
#define SVG_FRAME 16		  /* a frame's height, its gap included */
#define SVG_TOP 54		  /* title, subtitle, buttons */
#define SVG_BOTTOM 34		  /* the details line */
#define SVG_FONT 12
#define SVG_CHAR 7.08		  /* Verdana 12px's mean advance, for labels that fit */
#define SVG_MIN_WIDTH 0.1	  /* narrower frames (and what they call) are left out */

/* The viewer: hover, zoom, search, the URL.  Kept apart from the frames, which it reads. */
static const char svg_script[] =
	"\"use strict\";\n"
	"var svg, frames, details, matched, unzoom_btn, W, XPAD, FONT_W, total;\n"
	"var zoomed = null, searched = null;\n"
	"function init(evt) {\n"
	"\tsvg = document.documentElement;\n"
	"\tframes = document.getElementById(\"frames\");\n"
	"\tdetails = document.getElementById(\"details\").firstChild;\n"
	"\tmatched = document.getElementById(\"matched\").firstChild;\n"
	"\tunzoom_btn = document.getElementById(\"unzoom\");\n"
	"\tW = +svg.getAttribute(\"width\");\n"
	"\tXPAD = +svg.getAttribute(\"data-xpad\");\n"
	"\tFONT_W = +svg.getAttribute(\"data-char\");\n"
	"\ttotal = +svg.getAttribute(\"data-total\");\n"
	"\tframes.addEventListener(\"mouseover\", function (e) {\n"
	"\t\tvar g = frame_of(e.target);\n"
	"\t\tif (g) details.nodeValue = g.firstChild.textContent.replace(\"\\n\", \" \");\n"
	"\t});\n"
	"\tframes.addEventListener(\"mouseout\", function () { details.nodeValue = \" \"; });\n"
	"\tframes.addEventListener(\"click\", function (e) {\n"
	"\t\tvar g = frame_of(e.target);\n"
	"\t\tif (g) zoom(g);\n"
	"\t});\n"
	"\tunzoom_btn.addEventListener(\"click\", function () { zoom(null); });\n"
	"\tdocument.getElementById(\"search\").addEventListener(\"click\", ask);\n"
	"\tdocument.getElementById(\"reset\").addEventListener(\"click\", function () { search(null); });\n"
	"\twindow.addEventListener(\"keydown\", function (e) {\n"
	"\t\tif ((e.ctrlKey && e.key === \"f\") || e.key === \"F3\" || e.key === \"/\") {\n"
	"\t\t\te.preventDefault();\n"
	"\t\t\task();\n"
	"\t\t} else if (e.key === \"Escape\") {\n"
	"\t\t\tzoom(null);\n"
	"\t\t\tsearch(null);\n"
	"\t\t}\n"
	"\t});\n"
	"\tvar p = new URLSearchParams(document.location.search);\n"
	"\tif (p.get(\"x\") !== null && p.get(\"y\") !== null) {\n"
	"\t\tvar all = frames.children;\n"
	"\t\tfor (var i = 0; i < all.length; i++)\n"
	"\t\t\tif (all[i].getAttribute(\"data-s\") === p.get(\"x\") &&\n"
	"\t\t\t    all[i].getAttribute(\"data-d\") === p.get(\"y\"))\n"
	"\t\t\t\tzoom(all[i]);\n"
	"\t}\n"
	"\tif (p.get(\"s\"))\n"
	"\t\tsearch(p.get(\"s\"));\n"
	"}\n"
	"function frame_of(e) {\n"
	"\twhile (e && e !== frames && !(e.classList && e.classList.contains(\"f\")))\n"
	"\t\te = e.parentNode;\n"
	"\treturn e === frames ? null : e;\n"
	"}\n"
	"function num(g, a) { return +g.getAttribute(a); }\n"
	"function name_of(g) { return g.firstChild.textContent.split(\"\\n\")[0]; }\n"
	"/* a frame at x, w pixels wide, its label as much of its name as fits */\n"
	"function place(g, x, w) {\n"
	"\tvar r = g.children[1], t = g.children[2], name = name_of(g);\n"
	"\tvar n = Math.floor((w - 6) / FONT_W);\n"
	"\tr.setAttribute(\"x\", x.toFixed(2));\n"
	"\tr.setAttribute(\"width\", w.toFixed(2));\n"
	"\tt.setAttribute(\"x\", (x + 3).toFixed(2));\n"
	"\tt.textContent = n < 3 ? \"\" : n >= name.length ? name : name.substr(0, n - 2) + \"..\";\n"
	"}\n"
	"/* zoom into frame z (null: the whole graph): its callers span the width, dimmed */\n"
	"function zoom(z) {\n"
	"\tvar zs = z ? num(z, \"data-s\") : 0, zn = z ? num(z, \"data-n\") : total;\n"
	"\tvar zd = z ? num(z, \"data-d\") : -1, scale = (W - 2 * XPAD) / zn;\n"
	"\tvar all = frames.children;\n"
	"\tzoomed = z;\n"
	"\tfor (var i = 0; i < all.length; i++) {\n"
	"\t\tvar g = all[i], s = num(g, \"data-s\"), n = num(g, \"data-n\"), d = num(g, \"data-d\");\n"
	"\t\tvar inside = s >= zs && s + n <= zs + zn, above = s <= zs && s + n >= zs + zn;\n"
	"\t\tg.classList.remove(\"h\", \"p\");\n"
	"\t\tif (d < zd && above) {\n"
	"\t\t\tg.classList.add(\"p\");\n"
	"\t\t\tplace(g, XPAD, W - 2 * XPAD);\n"
	"\t\t} else if (d >= zd && inside && n * scale >= 0.1) {\n"
	"\t\t\tplace(g, XPAD + (s - zs) * scale, n * scale);\n"
	"\t\t} else {\n"
	"\t\t\tg.classList.add(\"h\");\n"
	"\t\t}\n"
	"\t}\n"
	"\tunzoom_btn.classList.toggle(\"hide\", !z);\n"
	"\tremember();\n"
	"}\n"
	"function ask() {\n"
	"\tvar re = window.prompt(\"Search for (a regular expression)\", searched || \"\");\n"
	"\tif (re !== null)\n"
	"\t\tsearch(re || null);\n"
	"}\n"
	"/* mark the frames whose names match re; the steps they hold, nested ones once */\n"
	"function search(re) {\n"
	"\tvar all = frames.children, spans = [], rx = null, sum = 0, end = -1;\n"
	"\ttry {\n"
	"\t\trx = re ? new RegExp(re) : null;\n"
	"\t} catch (err) {\n"
	"\t\tmatched.nodeValue = \"bad expression: \" + re;\n"
	"\t\treturn;\n"
	"\t}\n"
	"\tsearched = re;\n"
	"\tfor (var i = 0; i < all.length; i++) {\n"
	"\t\tvar hit = rx !== null && rx.test(name_of(all[i]));\n"
	"\t\tall[i].classList.toggle(\"m\", hit);\n"
	"\t\tif (hit)\n"
	"\t\t\tspans.push([num(all[i], \"data-s\"), num(all[i], \"data-n\")]);\n"
	"\t}\n"
	"\tspans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
	"\tfor (var k = 0; k < spans.length; k++) {\n"
	"\t\tvar s = Math.max(spans[k][0], end), e = spans[k][0] + spans[k][1];\n"
	"\t\tif (e > s) {\n"
	"\t\t\tsum += e - s;\n"
	"\t\t\tend = e;\n"
	"\t\t}\n"
	"\t}\n"
	"\tdocument.getElementById(\"reset\").classList.toggle(\"hide\", !rx);\n"
	"\tmatched.nodeValue = rx ? \"Matched: \" + sum + \" steps, \" +\n"
	"\t\t(100 * sum / total).toFixed(2) + \"%\" : \" \";\n"
	"\tremember();\n"
	"}\n"
	"/* the URL says what is shown */\n"
	"function remember() {\n"
	"\tvar p = new URLSearchParams();\n"
	"\tif (zoomed) {\n"
	"\t\tp.set(\"x\", zoomed.getAttribute(\"data-s\"));\n"
	"\t\tp.set(\"y\", zoomed.getAttribute(\"data-d\"));\n"
	"\t}\n"
	"\tif (searched)\n"
	"\t\tp.set(\"s\", searched);\n"
	"\ttry {\n"
	"\t\thistory.replaceState(null, \"\", p.toString() ? \"?\" + p.toString() :\n"
	"\t\t\t\t     document.location.pathname);\n"
	"\t} catch (err) {\n"
	"\t\t/* not where the document comes from (a file: URL in some browsers) */\n"
	"\t}\n"
	"}\n";

static const char svg_style[] =
	"text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
	"#title { text-anchor: middle; font-size: 17px; }\n"
	"#subtitle { text-anchor: middle; fill: rgb(80,80,80); }\n"
	".button { cursor: pointer; fill: rgb(0,0,160); }\n"
	".button:hover { text-decoration: underline; }\n"
	".hide { display: none; }\n"
	".f { cursor: pointer; }\n"
	".f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
	".f text { pointer-events: none; }\n"
	".h { display: none; }\n"
	".p { opacity: 0.5; }\n"
	".m rect { fill: rgb(230,0,230); }\n";

struct svg {
	const struct flow_report *r;
	const struct flame *fl;
	FILE *out;
	uint64_t total;
	double scale;		  /* pixels a step */
	unsigned height;
	uint64_t *next;		  /* per depth: where the next frame starts (steps) */
	uint64_t left_out;	  /* frames under SVG_MIN_WIDTH */
	uint64_t too_deep;	  /* frames deeper than max_stack, left out */
	unsigned max_stack;
};

/* s as XML text or attribute value. */
static void xml_chars(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			if ((unsigned char)s[i] >= 0x20 || s[i] == '\n')
				fputc(s[i], out);
		}
	}
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Warm colours for user code, blue-green for the kernel, lilac for processes and threads. */
static void frame_colour(const struct svg *g, const struct flame_node *n, char *buf, size_t size)
{
	uint32_t h = name_hash(n->name);
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0;

	if (n->fn == CF_NO_FN)
		snprintf(buf, size, "rgb(%d,%d,%d)", 170 + (int)(30 * v1), 150 + (int)(30 * v2), 220);
	else if (cf_func(g->r->cf, n->fn)->ring == 1)
		snprintf(buf, size, "rgb(%d,%d,%d)", 50 + (int)(60 * v1), 170 + (int)(50 * v2),
			 170 + (int)(50 * v2));
	else
		snprintf(buf, size, "rgb(%d,%d,%d)", 205 + (int)(50 * v2), (int)(230 * v1),
			 (int)(55 * v2));
}

/* As much of name as fits in w pixels ("na.." when cut); its length. */
static size_t label_len(const char *name, double w, bool *cut)
{
	size_t fit = w > 6 ? (size_t)((w - 6) / SVG_CHAR) : 0, n = strlen(name);

	*cut = false;
	if (fit < 3)
		return 0;
	if (n <= fit)
		return n;
	*cut = true;
	n = fit - 2;
	while (n && ((unsigned char)name[n] & 0xc0) == 0x80)
		n--;	/* never half a UTF-8 character */
	return n;
}

static bool svg_frame(void *ctx, const struct flame_node *n, const uint32_t *path)
{
	struct svg *g = ctx;
	uint64_t start = g->next[n->depth];
	double x = SVG_XPAD + (double)start * g->scale, w = (double)n->total * g->scale;
	double y = g->height - SVG_BOTTOM - (n->depth + 1) * SVG_FRAME;
	char colour[48];
	const char *module = n->fn == CF_NO_FN ? NULL : cf_func(g->r->cf, n->fn)->module;
	size_t len;
	bool cut;

	(void)path;
	if (n->depth >= g->max_stack) {
		g->too_deep++;
		return false;
	}
	g->next[n->depth] += n->total;
	g->next[n->depth + 1] = start;	/* its callees start where it does */
	if (w < SVG_MIN_WIDTH) {
		g->left_out++;
		return false;
	}
	frame_colour(g, n, colour, sizeof(colour));
	fprintf(g->out, "<g class=\"f\" data-s=\"%" PRIu64 "\" data-n=\"%" PRIu64 "\" data-d=\"%u\">"
		"<title>", start, n->total, n->depth);
	xml_chars(g->out, n->name, SIZE_MAX);
	fprintf(g->out, "\n");
	if (module) {
		fputc('[', g->out);
		xml_chars(g->out, module, SIZE_MAX);
		fputs("] ", g->out);
	}
	fprintf(g->out, "%" PRIu64 " steps (%.2f%%), self %" PRIu64 "</title>", n->total,
		report_percent(n->total, g->total), n->self);
	fprintf(g->out, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
		"rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\">", x, y, w, SVG_FRAME - 1, colour, x + 3,
		y + SVG_FRAME - 4.5);
	len = label_len(n->name, w, &cut);
	xml_chars(g->out, n->name, len);
	fprintf(g->out, "%s</text></g>\n", cut ? ".." : "");
	return true;
}

static void svg_head(struct svg *g, const char *title)
{
	FILE *out = g->out;
	const int w = SVG_WIDTH, h = (int)g->height;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" onload=\"init(evt)\" data-total=\"%" PRIu64
		"\" data-xpad=\"%d\" data-char=\"%.2f\">\n", w, h, w, h, g->total, SVG_XPAD,
		SVG_CHAR);
	fprintf(out, "<!-- a flame graph written by pitrace (post export, format svg) -->\n");
	fprintf(out, "<defs><linearGradient id=\"bg\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		"<stop stop-color=\"#eeeeee\" offset=\"5%%\"/><stop stop-color=\"#eeeeb0\" "
		"offset=\"95%%\"/></linearGradient></defs>\n");
	fprintf(out, "<style type=\"text/css\">\n%s</style>\n", svg_style);
	fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n", svg_script);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"url(#bg)\"/>\n", w, h);
	fprintf(out, "<text id=\"title\" x=\"%d\" y=\"22\">", w / 2);
	xml_chars(out, title, SIZE_MAX);
	fprintf(out, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"40\">%" PRIu64 " steps; a frame's "
		"width is its steps and its callees'; click to zoom, Ctrl-F to search</text>\n",
		w / 2, g->total);
	fprintf(out, "<text id=\"unzoom\" class=\"button hide\" x=\"%d\" y=\"22\">Reset Zoom</text>\n",
		SVG_XPAD);
	fprintf(out, "<text id=\"search\" class=\"button\" x=\"%d\" y=\"22\">Search</text>\n",
		w - SVG_XPAD - 100);
	fprintf(out, "<text id=\"reset\" class=\"button hide\" x=\"%d\" y=\"22\">Reset</text>\n",
		w - SVG_XPAD - 40);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", SVG_XPAD, h - 12);
	fprintf(out, "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n", w - SVG_XPAD - 250, h - 12);
}

int export_svg(struct flow_report *r, FILE *out, enum flame_prefix prefix, const char *title,
	       unsigned max_stack)
{
	struct flame *fl = flame_new(r, prefix);
	struct svg g = { .r = r, .fl = fl, .out = out };
	unsigned levels;
	int ret = 0;

	if (!fl)
		return EXIT_RUNTIME;
	g.max_stack = max_stack < EXPORT_MIN_STACK ? EXPORT_MIN_STACK : max_stack;
	levels = flame_depth(fl) < g.max_stack ? flame_depth(fl) : g.max_stack;
	g.total = flame_node(fl, 0)->total;
	g.scale = g.total ? (double)(SVG_WIDTH - 2 * SVG_XPAD) / (double)g.total : 0;
	g.height = SVG_TOP + SVG_BOTTOM + (levels ? levels : 1) * SVG_FRAME;
	g.next = calloc(levels + 2, sizeof(*g.next));
	if (!g.next) {
		pr_err("out of memory laying out the flame graph");
		flame_free(fl);
		return EXIT_RUNTIME;
	}
	svg_head(&g, title);
	fputs("<g id=\"frames\">\n", out);
	if (flame_walk(fl, svg_frame, &g) < 0)
		ret = EXIT_RUNTIME;
	fputs("</g>\n", out);
	if (g.left_out)
		fprintf(out, "<!-- %" PRIu64 " call paths under %.1f pixels wide left out -->\n",
			g.left_out, SVG_MIN_WIDTH);
	if (g.too_deep) {
		fprintf(out, "<!-- call paths deeper than %u levels end there (--max-stack) -->\n",
			g.max_stack);
		pr_warn("svg: call paths deeper than %u levels are drawn to that level "
			"(--max-stack)", g.max_stack);
	}
	fputs("</svg>\n", out);
	pr_dbg("flame graph: %" PRIu64 " steps, %u levels, %" PRIu64 " narrow paths left out",
	       g.total, flame_depth(fl), g.left_out);
	free(g.next);
	flame_free(fl);
	return ret;
}
