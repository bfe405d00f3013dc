// SPDX-License-Identifier: GPL-2.0
/* Option tables: getopt_long parsing and --help from one description (options.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "options.h"

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
	return o->type != POPT_FLAG && o->type != POPT_COUNT &&
	       !(o->type == POPT_CALLBACK && !o->arg);
}

/* "--name" or "-x", for messages. */
static const char *opt_name(const struct popt *o, char *buf, size_t size)
{
	if (o->long_name)
		snprintf(buf, size, "--%s", o->long_name);
	else
		snprintf(buf, size, "-%c", o->short_name);
	return buf;
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

/* "profile: " before a command's messages; "" for post's own options (no name). */
static const char *prefix(const struct popt_cmd *cmd)
{
	static char buf[64];

	if (!cmd->name)
		return "";
	snprintf(buf, sizeof(buf), "%s: ", cmd->name);
	return buf;
}

/* "post profile", or "post" for post's own options. */
static const char *see(const struct popt_cmd *cmd)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "post%s%s", cmd->name ? " " : "", cmd->name ? cmd->name : "");
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

int popt_parse(const struct popt_cmd *cmd, int argc, char **argv,
	       const struct popt *const *tables, char ***args, int *nargs)
{
	static const struct popt help = OPT_FLAG('h', "help", NULL, "this help");
	struct flat f;
	struct option *longs;
	char shorts[256] = "+:", name[64];
	size_t ns = 2, nl = 0;
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
	f.o[f.n] = &help;
	for (size_t i = 0; i <= f.n; i++) {
		const struct popt *o = f.o[i];

		if (o->long_name)
			longs[nl++] = (struct option){ o->long_name,
						       takes_value(o) ? required_argument
								      : no_argument,
						       NULL, (int)(POPT_LONG_BASE + i) };
		if (o->short_name && ns + 3 < sizeof(shorts)) {
			shorts[ns++] = (char)o->short_name;
			if (takes_value(o))
				shorts[ns++] = ':';
		}
	}
	shorts[ns] = '\0';
	if (!cmd->stop_at_args)
		memmove(shorts, shorts + 1, ns);	/* no '+': options anywhere */
	optind = 0;		  /* reset getopt (GNU: 0 reinitializes) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct popt *o = NULL;

		if (c >= POPT_LONG_BASE) {
			o = f.o[c - POPT_LONG_BASE];
		} else if (c == '?' || c == ':') {
			/* optopt: a short option, or a long one's val; else the unknown long one
			 * is argv[optind - 1] */
			const char *bad = optopt ? NULL : argv[optind - 1];

			if (optopt >= POPT_LONG_BASE)
				opt_name(f.o[optopt - POPT_LONG_BASE], name, sizeof(name));
			else if (optopt)
				snprintf(name, sizeof(name), "-%c", optopt);
			else
				snprintf(name, sizeof(name), "%.*s", (int)strcspn(bad, "="), bad);
			if (c == ':')
				pr_err("%soption '%s' needs a value", prefix(cmd), name);
			else if (optopt >= POPT_LONG_BASE)	/* a flag given "=value" */
				pr_err("%soption '%s' takes no value (see '%s --help')",
				       prefix(cmd), name, see(cmd));
			else
				pr_err("%sunknown option '%s' (see '%s --help')", prefix(cmd),
				       name, see(cmd));
			ret = EXIT_USAGE;
			break;
		} else {
			for (size_t i = 0; i <= f.n && !o; i++)
				if (f.o[i]->short_name == c)
					o = f.o[i];
		}
		if (o == &help) {
			popt_usage(stdout, cmd, tables);
			ret = POPT_HELP;
			break;
		}
		if (o && (ret = store(cmd, o, optarg)))
			break;
	}
	if (!ret) {
		*args = argv + optind;
		*nargs = argc - optind;
	}
	free(longs);
	free(f.o);
	return ret;
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
	} else if (o->arg) {
		n += snprintf(buf + n, size - (size_t)n, " %s", o->arg);
	}
	return n;
}

void popt_usage(FILE *f, const struct popt_cmd *cmd, const struct popt *const *tables)
{
	enum { COL = 24 };
	char text[128];

	fprintf(f, "usage: %s %s\n\n%s\n", see(cmd), cmd->synopsis, cmd->description);
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
}
