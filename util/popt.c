// SPDX-License-Identifier: GPL-2.0
/* Option tables: getopt_long parsing and --help from one description (popt.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/popt.h"

#define POPT_LONG_BASE 256	  /* getopt_long's val for the table's n-th entry: base + n */

/* The entries of all tables, flattened (groups left out). */
struct flat {
	const struct popt **o;
	size_t n;
};

static int flatten(const struct popt *const *tables, struct flat *f)
{
	size_t n = 0;

	for (size_t t = 0; tables[t]; t++)
		for (const struct popt *o = tables[t]; o->type != POPT_END; o++)
			n++;
	f->o = calloc(n + 1, sizeof(*f->o));
	if (!f->o)
		return -1;
	f->n = 0;
	for (size_t t = 0; tables[t]; t++)
		for (const struct popt *o = tables[t]; o->type != POPT_END; o++)
			if (o->type != POPT_GROUP)
				f->o[f->n++] = o;
	return 0;
}

static bool takes_value(const struct popt *o)
{
	return o->type != POPT_FLAG && o->type != POPT_COUNT && o->type != POPT_HELP_OPT &&
	       !(o->type == POPT_CALLBACK && !o->arg);
}

/* "--name" or "-x", for messages about a value. */
static const char *opt_name(const struct popt *o, char *buf, size_t size)
{
	if (o->long_name)
		snprintf(buf, size, "--%s", o->long_name);
	else
		snprintf(buf, size, "-%c", o->short_name);
	return buf;
}

/* "-o/--output", "--on" or "-i": every name of the option, for messages about it. */
static const char *opt_names(const struct popt *o, char *buf, size_t size)
{
	if (o->short_name && o->long_name)
		snprintf(buf, size, "-%c/--%s", o->short_name, o->long_name);
	else
		opt_name(o, buf, size);
	return buf;
}

/* The value's name for messages: "DIR", "process|thread|...", or "a value". */
static const char *value_name(const struct popt *o, char *buf, size_t size)
{
	size_t n = 0;

	if (o->type != POPT_CHOICE)
		return o->arg ? o->arg : "a value";
	buf[0] = '\0';
	for (size_t i = 0; o->choices[i] && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "|" : "", o->choices[i]);
	return buf;
}

/* An earlier entry of f has o's name: o is a variant of it, not parsed by itself. */
static bool variant_of_earlier(const struct flat *f, size_t i)
{
	const struct popt *o = f->o[i];

	for (size_t j = 0; j < i; j++) {
		const struct popt *e = f->o[j];

		if (o->long_name ? e->long_name && !strcmp(e->long_name, o->long_name) :
				   e->short_name == o->short_name)
			return true;
	}
	return false;
}

int popt_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e9 } };
	char *end;
	double v;

	errno = 0;
	if (!*s || *s == '-')
		return -1;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			double n = v * units[i].scale;

			if (n >= 1.8e19)
				return -1;
			*ns = (uint64_t)llround(n);
			return 0;
		}
	return -1;
}

/* "profile: " before a command's messages; "" for the program's own options (no name). */
static const char *prefix(const struct popt_cmd *cmd)
{
	static char buf[64];

	if (!cmd->name)
		return "";
	snprintf(buf, sizeof(buf), "%s: ", cmd->name);
	return buf;
}

/* "post profile", or "pitrace" for the program's own options. */
static const char *see(const struct popt_cmd *cmd)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "%s%s%s", log_progname, cmd->name ? " " : "",
		 cmd->name ? cmd->name : "");
	return buf;
}

/* Store arg into o's value; 0, or EXIT_USAGE with the message printed. */
static int store(const struct popt_cmd *cmd, const struct popt *o, const char *arg)
{
	char name[64], *end;
	unsigned long long v;
	double d;

	opt_name(o, name, sizeof(name));
	switch (o->type) {
	case POPT_FLAG:
		*(bool *)o->value = true;
		return 0;
	case POPT_COUNT:
		++*(int *)o->value;
		return 0;
	case POPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case POPT_U32:
	case POPT_U64:
	case POPT_SIZE:
		errno = 0;
		v = strtoull(arg, &end, o->type == POPT_U64 ? 0 : 10);
		if (errno || end == arg || *end || arg[0] == '-' || arg[0] == '+' ||
		    (o->type != POPT_U64 && v == 0) || (o->type == POPT_U32 && v > UINT32_MAX)) {
			pr_err("%s%s '%s' is not a %s number%s", prefix(cmd), name, arg,
			       o->type == POPT_U64 ? "non-negative" : "positive",
			       o->type == POPT_SIZE ? " of rows" : "");
			return EXIT_USAGE;
		}
		if (o->type == POPT_U32)
			*(uint32_t *)o->value = (uint32_t)v;
		else if (o->type == POPT_U64)
			*(uint64_t *)o->value = v;
		else
			*(size_t *)o->value = (size_t)v;
		return 0;
	case POPT_PERCENT:
		errno = 0;
		d = strtod(arg, &end);
		if (errno || end == arg || *end || !(d >= 0 && d <= 100)) {
			pr_err("%s%s '%s' is not a percentage (0 to 100)", prefix(cmd), name, arg);
			return EXIT_USAGE;
		}
		*(double *)o->value = d;
		return 0;
	case POPT_CHOICE:
		for (int i = 0; o->choices[i]; i++)
			if (!strcmp(arg, o->choices[i])) {
				*(int *)o->value = i;
				return 0;
			}
		{
			char list[256] = "";
			size_t n = 0;

			for (int i = 0; o->choices[i] && n < sizeof(list); i++)
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
						      i ? ", " : "", o->choices[i]);
			pr_err("%s%s '%s' is not one of %s", prefix(cmd), name, arg, list);
		}
		return EXIT_USAGE;
	case POPT_DURATION:
		if (popt_parse_duration(arg, (uint64_t *)o->value) < 0) {
			pr_err("%s%s '%s' is not a time (seconds, or a number with ns, us, ms "
			       "or s)", prefix(cmd), name, arg);
			return EXIT_USAGE;
		}
		return 0;
	case POPT_CALLBACK:
		return o->cb(o, arg, cmd->name) < 0 ? EXIT_USAGE : 0;
	default:
		return 0;
	}
}

/* Long options of f that word ("--fo") abbreviates. */
static int prefix_matches(const struct flat *f, const char *word)
{
	size_t len;
	int n = 0;

	if (strncmp(word, "--", 2))
		return 0;
	word += 2;
	len = strlen(word);
	for (size_t i = 0; i < f->n; i++)
		n += len && f->o[i]->long_name && !strncmp(f->o[i]->long_name, word, len) &&
		     !variant_of_earlier(f, i);
	return n;
}

/* One line for getopt_long's complaint c ('?' or ':'); EXIT_USAGE. */
static int parse_error(const struct popt_cmd *cmd, const struct flat *f, int c, char **argv)
{
	const struct popt *o = NULL;
	char name[64], value[256];

	if (optopt >= POPT_LONG_BASE)
		o = f->o[optopt - POPT_LONG_BASE];
	for (size_t i = 0; i < f->n && !o && optopt; i++)
		if (f->o[i]->short_name == optopt)
			o = f->o[i];
	if (c == ':' && o) {
		pr_err("%soption %s needs an argument (%s) (see '%s --help')", prefix(cmd),
		       opt_names(o, name, sizeof(name)), value_name(o, value, sizeof(value)),
		       see(cmd));
	} else if (o) {		/* a flag given "=value" */
		pr_err("%soption --%s takes no argument (see '%s --help')", prefix(cmd),
		       o->long_name, see(cmd));
	} else if (optopt) {
		pr_err("%sunknown option '-%c' (see '%s --help')", prefix(cmd), optopt, see(cmd));
	} else {
		/* the unknown or ambiguous long option is argv[optind - 1] */
		const char *bad = argv[optind - 1];

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(bad, "="), bad);
		pr_err("%s%s option '%s' (see '%s --help')", prefix(cmd),
		       prefix_matches(f, name) > 1 ? "ambiguous" : "unknown", name, see(cmd));
	}
	return EXIT_USAGE;
}

/* Note o as given, once. */
static void remember(const struct popt_cmd *cmd, const struct popt *o)
{
	struct popt_given *g = cmd->given;

	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++)
		if (g->o[i] == o)
			return;
	if (g->n < sizeof(g->o) / sizeof(g->o[0]))
		g->o[g->n++] = o;
}

/* getopt_long's arguments for the options of f: longs has room for f->n entries. */
static void getopt_args(const struct popt_cmd *cmd, const struct flat *f, struct option *longs,
			char *shorts, size_t size)
{
	size_t ns = 0, nl = 0;

	/* '+': stop at the first argument; ':': a missing value returns ':' */
	if (cmd->stop_at_args)
		shorts[ns++] = '+';
	shorts[ns++] = ':';
	for (size_t i = 0; i < f->n; i++) {
		const struct popt *o = f->o[i];
		bool value = takes_value(o);

		if (variant_of_earlier(f, i))
			continue;
		if (o->long_name)
			longs[nl++] = (struct option){
				o->long_name,
				!value ? no_argument : o->optional ? optional_argument
								   : required_argument,
				NULL, (int)(POPT_LONG_BASE + i) };
		if (o->short_name && ns + 4 < size) {
			shorts[ns++] = (char)o->short_name;
			if (value)
				shorts[ns++] = ':';
			if (value && o->optional)
				shorts[ns++] = ':';
		}
	}
	shorts[ns] = '\0';
}

int popt_parse(const struct popt_cmd *cmd, int argc, char **argv,
	       const struct popt *const *tables, char ***args, int *nargs)
{
	static const struct popt help = OPT_HELP("this help");
	struct flat f;
	struct option *longs;
	char shorts[256];
	bool has_help = false, want_help = false;
	int c, ret = 0;

	if (flatten(tables, &f) < 0) {
		pr_err("out of memory parsing options");
		return EXIT_USAGE;
	}
	longs = calloc(f.n + 2, sizeof(*longs));
	if (!longs) {
		free(f.o);
		pr_err("out of memory parsing options");
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < f.n; i++)
		has_help |= f.o[i]->type == POPT_HELP_OPT;
	if (!has_help)
		f.o[f.n++] = &help;
	getopt_args(cmd, &f, longs, shorts, sizeof(shorts));
	optind = 0;		  /* reset getopt (GNU: 0 reinitializes) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct popt *o = NULL;

		if (c >= POPT_LONG_BASE) {
			o = f.o[c - POPT_LONG_BASE];
		} else if (c == '?' || c == ':') {
			ret = parse_error(cmd, &f, c, argv);
			break;
		} else {
			for (size_t i = 0; i < f.n && !o; i++)
				if (f.o[i]->short_name == c)
					o = f.o[i];
		}
		if (o && o->type == POPT_HELP_OPT) {
			want_help = true;
			if (cmd->defer_help)
				continue;
			popt_usage(stdout, cmd, tables);
			break;
		}
		if (!o)
			continue;
		remember(cmd, o);
		if ((ret = store(cmd, o, optarg)))
			break;
	}
	if (!ret && want_help)
		ret = POPT_HELP;
	if (!ret) {
		*args = argv + optind;
		*nargs = argc - optind;
	}
	free(longs);
	free(f.o);
	return ret;
}

const struct popt *popt_outside(const struct popt *const *tables,
				const struct popt_given *given, unsigned variant)
{
	for (size_t i = 0; i < given->n; i++) {
		const struct popt *g = given->o[i];
		unsigned variants = 0;

		for (size_t t = 0; tables[t]; t++)
			for (const struct popt *o = tables[t]; o->type != POPT_END; o++)
				if (g->long_name ? o->long_name && !strcmp(o->long_name, g->long_name) :
						   o->short_name == g->short_name)
					variants |= o->variants ? o->variants : ~0u;
		if (!(variants & variant))
			return g;
	}
	return NULL;
}

/* "  -i, --input DIR" */
static int option_text(const struct popt *o, char *buf, size_t size)
{
	int n = snprintf(buf, size, "  ");

	if (o->short_name)
		n += snprintf(buf + n, size - (size_t)n, "-%c%s", o->short_name,
			      o->long_name ? ", " : "");
	if (o->long_name)
		n += snprintf(buf + n, size - (size_t)n, "--%s", o->long_name);
	if (o->type == POPT_CHOICE) {
		/* the values themselves: "--by process|thread|..." */
		for (size_t i = 0; o->choices[i] && n < (int)size; i++)
			n += snprintf(buf + n, size - (size_t)n, "%s%s", i ? "|" : " ", o->choices[i]);
	} else if (o->arg && o->optional) {
		n += snprintf(buf + n, size - (size_t)n, "[=%s]", o->arg);
	} else if (o->arg) {
		n += snprintf(buf + n, size - (size_t)n, " %s", o->arg);
	}
	return n;
}

void popt_usage(FILE *f, const struct popt_cmd *cmd, const struct popt *const *tables)
{
	enum { COL = 24 };
	char text[128];

	bool synopsis = cmd->synopsis && *cmd->synopsis;

	fprintf(f, "usage: %s%s%s\n\n%s\n", see(cmd), synopsis ? " " : "",
		synopsis ? cmd->synopsis : "", cmd->description);
	for (size_t t = 0; tables[t]; t++)
		for (const struct popt *o = tables[t]; o->type != POPT_END; o++) {
			const char *h = o->help ? o->help : "", *nl;
			int n;

			if (o->type == POPT_GROUP) {
				fprintf(f, "\n%s:\n", h);
				continue;
			}
			if (!o->help)
				continue;	/* hidden */
			if (cmd->variant && o->variants && !(o->variants & cmd->variant))
				continue;	/* another variant's */
			n = option_text(o, text, sizeof(text));
			fputs(text, f);
			if (n >= COL - 1) {
				fputc('\n', f);
				n = 0;
			}
			for (;;) {
				nl = strchr(h, '\n');
				fprintf(f, "%*s%.*s\n", COL - n, "", nl ? (int)(nl - h) : (int)strlen(h),
					h);
				if (!nl)
					break;
				h = nl + 1;
				n = 0;
			}
		}
	if (cmd->epilog)
		fprintf(f, "\n%s\n", cmd->epilog);
}

int popt_count(const char *cmd, const char *name, const char *arg, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull alone would take " 1", "+1" and "-1" (as a huge count) */
	errno = 0;
	v = arg[0] >= '0' && arg[0] <= '9' ? strtoull(arg, &end, 10) : 0;
	if (!v || errno || *end) {
		pr_err("%s: --%s '%s' is not a whole number of 1 or more", cmd, name, arg);
		return -1;
	}
	*out = v;
	return 0;
}

int popt_seconds(const char *cmd, const char *name, const char *arg, uint64_t *out_ns)
{
	size_t digits = strspn(arg, "0123456789.");
	const char *dot = strchr(arg, '.');
	double v = 0;

	/* digits and one dot only: strtod would take "inf", "1e3", "0x10", " 1" */
	if (digits && !arg[digits] && (!dot || !strchr(dot + 1, '.')) && strcmp(arg, "."))
		v = strtod(arg, NULL);
	if (!(v > 0) || v > POPT_SECONDS_MAX || (uint64_t)(v * 1e9) == 0) {
		pr_err("%s: --%s '%s' is not a number of seconds above 0 (e.g. 2.5)", cmd, name,
		       arg);
		return -1;
	}
	*out_ns = (uint64_t)(v * 1e9);
	return 0;
}

int popt_count_cb(const struct popt *o, const char *arg, const char *cmd)
{
	return popt_count(cmd, o->long_name, arg, o->value);
}

int popt_seconds_cb(const struct popt *o, const char *arg, const char *cmd)
{
	return popt_seconds(cmd, o->long_name, arg, o->value);
}
