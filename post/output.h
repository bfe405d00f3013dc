/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How reports write to people: on a terminal, numbers with thousands
 * separators, hot rows in colour and the output through a pager; for
 * scripts (stdout not a terminal) plain text, always the same.
 */
#ifndef POST_OUTPUT_H
#define POST_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum output_color { OUTPUT_COLOR_AUTO = 0, OUTPUT_COLOR_ALWAYS, OUTPUT_COLOR_NEVER };

/* What the output options asked (cmdline.h: POST_OUTPUT_OPTIONS). */
struct output_opts {
	int color;		  /* enum output_color: --color=auto|always|never */
	bool no_pager;		  /* --no-pager */
};

extern const char *const output_color_names[]; /* "auto", "always", "never" */

/* What is in effect, after output_start (before it: plain). */
struct output {
	bool tty;		  /* stdout was a terminal */
	bool color;
	bool thousands;		  /* 1,234,567 */
	bool paged;
};
extern struct output post_output;

/*
 * Decide from the options and stdout, and start the pager ($PAGER, else
 * "less -FRSX") when stdout is a terminal, unless --no-pager or PAGER is
 * empty or "cat".  Reports call it once options are parsed, before the
 * first line; output_end waits for the pager.
 */
void output_start(const struct output_opts *o);
void output_end(void);

/* v with thousands separators when they are on, into buf; returns buf. */
const char *output_num(uint64_t v, char *buf, size_t size);

/* Escape sequences around a row of percent p (hot: red from 5%, green from 0.5%). */
const char *output_hot(double percent);
const char *output_reset(void);

#endif /* POST_OUTPUT_H */
