// SPDX-License-Identifier: GPL-2.0
/* Options from one table: getopt_long's arguments, the help and the errors (options.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "options.h"

/* Column where the help text starts. */
#define HELP_COLUMN 24

static size_t nr_defs(const struct opt_def *defs)
{
	size_t n = 0;

	while (defs[n].name)
		n++;
	return n;
}

int opt_init(struct opt_parser *p, const char *cmd, const struct opt_def *defs, int argc,
	     char **argv, bool in_order)
{
	size_t n = nr_defs(defs), len = 0;

	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	p->defs = defs;
	p->argc = argc;
	p->argv = argv;
	p->longopts = calloc(n + 1, sizeof(*p->longopts));
	if (!p->longopts)
		return -1;
	/* '+': stop at the first operand; ':': a missing argument returns ':' */
	if (in_order)
		p->shorts[len++] = '+';
	p->shorts[len++] = ':';
	for (size_t i = 0, k = 0; i < n; i++) {
		const struct opt_def *d = &defs[i];
		bool again = false;

		/* an option listed once per variant of its help (record's --mode) */
		for (size_t j = 0; j < i && !again; j++)
			again = !strcmp(defs[j].name, d->name);
		if (again)
			continue;
		p->longopts[k++] = (struct option){
			d->name,
			d->arg == OPT_REQUIRED ? required_argument :
			d->arg == OPT_OPTIONAL ? optional_argument : no_argument,
			NULL, d->key,
		};
		if (d->key < OPT_ID_BASE && len + 3 < sizeof(p->shorts)) {
			p->shorts[len++] = (char)d->key;
			if (d->arg == OPT_REQUIRED)
				p->shorts[len++] = ':';
		}
	}
	p->shorts[len] = '\0';
	optind = 0;	/* 0, not 1: glibc forgets a previous parse's state */
	opterr = 0;
	return 0;
}

void opt_free(struct opt_parser *p)
{
	free(p->longopts);
	p->longopts = NULL;
}

const struct opt_def *opt_find(const struct opt_def *defs, int key)
{
	for (; defs->name; defs++)
		if (defs->key == key)
			return defs;
	return NULL;
}

const char *opt_name(const struct opt_def *d, char *buf, size_t size)
{
	if (d->key < OPT_ID_BASE)
		snprintf(buf, size, "-%c/--%s", d->key, d->name);
	else
		snprintf(buf, size, "--%s", d->name);
	return buf;
}

/* The option word as typed, without any "=value". */
static const char *typed(const struct opt_parser *p, char *buf, size_t size)
{
	const char *w = optind > 0 && optind <= p->argc ? p->argv[optind - 1] : "?";

	snprintf(buf, size, "%.*s", (int)strcspn(w, "="), w);
	return buf;
}

/* Long options that word ("--fo") abbreviates. */
static int prefix_matches(const struct opt_def *defs, const char *word)
{
	size_t len;
	int n = 0;

	if (strncmp(word, "--", 2))
		return 0;
	word += 2;
	len = strlen(word);
	for (const struct opt_def *d = defs; d->name; d++) {
		bool again = false;

		for (const struct opt_def *e = defs; e < d && !again; e++)
			again = !strcmp(e->name, d->name);
		n += !again && len && !strncmp(d->name, word, len);
	}
	return n;
}

int opt_next(struct opt_parser *p, const char **arg)
{
	const struct opt_def *d;
	char name[80], word[80];
	int ch;

	*arg = NULL;
	ch = getopt_long(p->argc, p->argv, p->shorts, p->longopts, NULL);
	if (ch == -1)
		return -1;
	if (ch != ':' && ch != '?') {
		*arg = optarg;
		return ch;
	}
	d = optopt ? opt_find(p->defs, optopt) : NULL;
	if (ch == ':' && d) {
		pr_err("%s: option %s needs an argument (%s) (see 'pitrace %s --help')", p->cmd,
		       opt_name(d, name, sizeof(name)), d->argname ? d->argname : "a value",
		       p->cmd);
	} else if (d && d->arg == OPT_NOARG) {
		pr_err("%s: option --%s takes no argument (see 'pitrace %s --help')", p->cmd,
		       d->name, p->cmd);
	} else if (optopt && optopt < OPT_ID_BASE && !d) {
		pr_err("%s: unknown option '-%c' (see 'pitrace %s --help')", p->cmd, optopt,
		       p->cmd);
	} else if (prefix_matches(p->defs, typed(p, word, sizeof(word))) > 1) {
		pr_err("%s: ambiguous option '%s' (see 'pitrace %s --help')", p->cmd, word,
		       p->cmd);
	} else {
		pr_err("%s: unknown option '%s' (see 'pitrace %s --help')", p->cmd, word, p->cmd);
	}
	return OPT_ERROR;
}

void opt_help(FILE *f, const struct opt_def *defs, unsigned mask)
{
	for (; defs->name; defs++) {
		char head[64];
		const char *h = defs->help ? defs->help : "";
		int n;

		if (mask && !(defs->flags & mask))
			continue;
		if (defs->key < OPT_ID_BASE)
			n = snprintf(head, sizeof(head), "  -%c, --%s", defs->key, defs->name);
		else
			n = snprintf(head, sizeof(head), "  --%s", defs->name);
		if (defs->argname && defs->arg == OPT_OPTIONAL)
			n += snprintf(head + n, sizeof(head) - (size_t)n, "[=%s]", defs->argname);
		else if (defs->argname)
			n += snprintf(head + n, sizeof(head) - (size_t)n, " %s", defs->argname);
		fputs(head, f);
		if (n + 2 > HELP_COLUMN) {
			fputc('\n', f);
			n = 0;
		}
		for (;;) {
			size_t len = strcspn(h, "\n");

			fprintf(f, "%*s%.*s\n", HELP_COLUMN - n, "", (int)len, h);
			if (!h[len])
				break;
			h += len + 1;
			n = 0;
		}
	}
}

int opt_count(const char *cmd, const char *name, const char *arg, uint64_t *out)
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

int opt_seconds(const char *cmd, const char *name, const char *arg, uint64_t *out_ns)
{
	size_t digits = strspn(arg, "0123456789.");
	const char *dot = strchr(arg, '.');
	double v = 0;

	/* digits and one dot only: strtod would take "inf", "1e3", "0x10", " 1" */
	if (digits && !arg[digits] && (!dot || !strchr(dot + 1, '.')) && strcmp(arg, "."))
		v = strtod(arg, NULL);
	if (!(v > 0) || v > OPT_SECONDS_MAX || (uint64_t)(v * 1e9) == 0) {
		pr_err("%s: --%s '%s' is not a number of seconds above 0 (e.g. 2.5)", cmd, name,
		       arg);
		return -1;
	}
	*out_ns = (uint64_t)(v * 1e9);
	return 0;
}
