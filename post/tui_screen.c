// SPDX-License-Identifier: GPL-2.0
/*
 * The viewer's screen: the terminal taken and given back (on exit, on
 * errors, on SIGINT, SIGTERM, SIGHUP and SIGQUIT), the stack of views, the
 * keys every view shares, search, prompts, help, and the status line.
 * While curses owns the terminal, stderr goes to a temporary file that is
 * copied back to it afterwards, so that no message scribbles over the
 * screen and none is lost.
 */
#include <ctype.h>
#include <curses.h>
#include <inttypes.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"
#include "post/tui.h"

#define MIN_COLS 80
#define MIN_LINES 24
#define HEAD_ROWS 3		  /* the title bar, the view's title, the column heading */

enum { PAIR_HOT = 1, PAIR_WARM, PAIR_BAR };

/* ---- the terminal ---- */

static volatile sig_atomic_t got_signal;
static double key_start;	  /* when the key being handled came (a prompt's: its Enter) */
static bool curses_on;
static int saved_stderr = -1;
static FILE *err_file;
static SCREEN *screen;

static void on_signal(int sig)
{
	got_signal = sig;
}

/* Give the terminal back and replay what was said on stderr meanwhile; safe to call twice. */
static void screen_stop(void)
{
	char buf[4096];
	size_t n;

	if (!curses_on)
		return;
	curses_on = false;
	endwin();
	fflush(stdout);
	fflush(stderr);
	if (saved_stderr >= 0) {
		dup2(saved_stderr, STDERR_FILENO);
		close(saved_stderr);
		saved_stderr = -1;
	}
	if (err_file) {
		rewind(err_file);
		while ((n = fread(buf, 1, sizeof(buf), err_file)) > 0)
			fwrite(buf, 1, n, stderr);
		fclose(err_file);
		err_file = NULL;
	}
	if (screen) {
		delscreen(screen);
		screen = NULL;
	}
}

static void set_signals(void (*handler)(int))
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa = { .sa_handler = handler };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static int screen_start(struct tui *ui)
{
	const char *term = getenv("TERM");

	setlocale(LC_CTYPE, "");
	screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		pr_err("tui: cannot drive the terminal '%s' (TERM)", term ? term : "");
		return EXIT_RUNTIME;
	}
	curses_on = true;
	atexit(screen_stop);
	err_file = tmpfile();
	fflush(stderr);
	if (err_file) {
		saved_stderr = dup(STDERR_FILENO);
		if (saved_stderr >= 0)
			dup2(fileno(err_file), STDERR_FILENO);
	}
	set_signals(on_signal);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	timeout(250);		  /* wake up now and then to see signals */
	ui->colour = has_colors();
	if (ui->colour) {
		start_color();
		use_default_colors();
		init_pair(PAIR_HOT, COLOR_RED, -1);
		init_pair(PAIR_WARM, COLOR_GREEN, -1);
		init_pair(PAIR_BAR, COLOR_BLACK, COLOR_CYAN);
	}
	return 0;
}

/* ---- helpers for the views ---- */

int tui_body_rows(const struct tui *ui)
{
	int n = ui->lines - HEAD_ROWS - 1;

	return n > 1 ? n : 1;
}

void tui_message(struct tui *ui, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ui->message, sizeof(ui->message), fmt, ap);
	va_end(ap);
}

enum tui_heat tui_heat_of(uint64_t part, uint64_t total)
{
	if (!total || !part)
		return TUI_COLD;
	if (part * 20 >= total)
		return TUI_HOT;
	return part * 200 >= total ? TUI_WARM : TUI_COLD;
}

bool tui_text_match(const char *name, const char *text)
{
	return name && *text && strcasestr(name, text);
}

bool tui_row_match(struct tui *ui, struct tui_view *v, size_t i, const char *text)
{
	char buf[1024];
	enum tui_heat heat = TUI_COLD;
	int attr = 0;

	buf[0] = '\0';
	v->ops->row(ui, v, i, buf, sizeof(buf), &heat, &attr);
	return tui_text_match(buf, text);
}

void tui_view_goto(struct tui *ui, struct tui_view *v, size_t i)
{
	size_t body = (size_t)tui_body_rows(ui);

	if (!v->nr_rows) {
		v->cur = v->top = 0;
		return;
	}
	v->cur = i < v->nr_rows ? i : v->nr_rows - 1;
	if (v->cur < v->top || v->cur >= v->top + body)
		v->top = v->cur > body / 3 ? v->cur - body / 3 : 0;
}

/* Keep the cursor on a row and on the screen (after resizes and rebuilt rows). */
static void clamp(struct tui *ui, struct tui_view *v)
{
	size_t body = (size_t)tui_body_rows(ui);

	if (!v->nr_rows) {
		v->cur = v->top = 0;
		return;
	}
	if (v->cur >= v->nr_rows)
		v->cur = v->nr_rows - 1;
	if (v->top > v->cur)
		v->top = v->cur;
	if (v->cur >= v->top + body)
		v->top = v->cur - body + 1;
	if (v->top + body > v->nr_rows)
		v->top = v->nr_rows > body ? v->nr_rows - body : 0;
}

int tui_push(struct tui *ui, struct tui_view *v)
{
	if (!v)
		return -1;
	if (ui->depth == ui->stack_size) {
		size_t n = ui->stack_size ? 2 * ui->stack_size : 16;
		struct tui_view **ns = realloc(ui->stack, n * sizeof(*ns));

		if (!ns) {
			if (v->ops->free)
				v->ops->free(v);
			return -1;
		}
		ui->stack = ns;
		ui->stack_size = n;
	}
	ui->stack[ui->depth++] = v;
	return 0;
}

void tui_pop(struct tui *ui)
{
	struct tui_view *v = ui->stack[--ui->depth];

	if (v->ops->free)
		v->ops->free(v);
}

static struct tui_view *top_view(struct tui *ui)
{
	return ui->stack[ui->depth - 1];
}

/* ---- drawing ---- */

static void fill_line(int y, const char *text, int attr)
{
	attron(attr);
	mvaddnstr(y, 0, text, COLS);
	for (int x = (int)strlen(text); x < COLS; x++)
		mvaddch(y, x, ' ');
	attroff(attr);
}

static int bar_attr(const struct tui *ui)
{
	return ui->colour ? COLOR_PAIR(PAIR_BAR) : A_REVERSE;
}

static void selection_label(const struct tui *ui, char *buf, size_t size)
{
	const struct tui_sel *s = &ui->prof->sel;
	const char *comm = trace_comm(session_trace(ui->d->r.s), s->tid ? s->tid : s->pid);

	if (tui_sel_all(*s))
		snprintf(buf, size, "all threads");
	else if (s->tid)
		snprintf(buf, size, "thread %u (pid %u%s%s)", s->tid, s->pid, comm ? ", " : "",
			 comm ? comm : "");
	else
		snprintf(buf, size, "process %u%s%s%s", s->pid, comm ? " (" : "", comm ? comm : "",
			 comm ? ")" : "");
}

static void draw_title(struct tui *ui)
{
	const struct trace *t = session_trace(ui->d->r.s);
	const struct trace_info *in = trace_info(t);
	const struct session_filter *f = session_filter(ui->d->r.s);
	char buf[1024] = "", sel[256], to[32];
	FILE *out = fmemopen(buf, sizeof(buf), "w");

	selection_label(ui, sel, sizeof(sel));
	if (out) {
		fprintf(out, " pitrace  trace %s (%s, %s)  %" PRIu64 " steps  %s", trace_dir(t),
			in->backend[0] ? in->backend : "?",
			in->state[0] ? in->state : "state unknown", ui->prof->total, sel);
		if (f->from || f->to != UINT64_MAX) {
			snprintf(to, sizeof(to), f->to == UINT64_MAX ? "end" : "%" PRIu64, f->to);
			fprintf(out, "  window %" PRIu64 "-%s", f->from, to);
		}
		if (f->time_from || f->time_to != UINT64_MAX)
			fputs("  time window", out);
		if (f->module || f->symbol || f->ring)
			fputs("  filtered", out);
		fclose(out);
	}
	fill_line(0, buf, bar_attr(ui));
}

static const char *scrolled(const char *s, size_t hscroll)
{
	size_t len = strlen(s);

	return hscroll < len ? s + hscroll : "";
}

static int heat_attr(const struct tui *ui, enum tui_heat h)
{
	switch (h) {
	case TUI_HOT:
		return ui->colour ? COLOR_PAIR(PAIR_HOT) | A_BOLD : A_BOLD;
	case TUI_WARM:
		return ui->colour ? COLOR_PAIR(PAIR_WARM) : 0;
	default:
		return 0;
	}
}

static void draw_status(struct tui *ui, struct tui_view *v)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), " %s  %zu/%zu%s%s  ? help  q %s", v->ops->name,
		 v->nr_rows ? v->cur + 1 : 0, v->nr_rows, ui->message[0] ? "  " : "", ui->message,
		 ui->depth > 1 ? "back" : "quit");
	fill_line(ui->lines - 1, buf, bar_attr(ui));
}

static void draw(struct tui *ui)
{
	struct tui_view *v = top_view(ui);
	int body;
	char *buf;

	getmaxyx(stdscr, ui->lines, ui->cols);
	erase();
	if (ui->cols < MIN_COLS || ui->lines < MIN_LINES) {
		mvprintw(ui->lines / 2, 0, "post tui needs a terminal of at least %dx%d", MIN_COLS,
			 MIN_LINES);
		mvprintw(ui->lines / 2 + 1, 0, "(this one is %dx%d); q quits", ui->cols, ui->lines);
		refresh();
		return;
	}
	body = tui_body_rows(ui);
	clamp(ui, v);
	draw_title(ui);
	attron(A_BOLD);
	mvaddnstr(1, 0, v->title, COLS);
	attroff(A_BOLD);
	attron(A_UNDERLINE);
	fill_line(2, scrolled(v->heading, v->hscroll), A_UNDERLINE);
	attroff(A_UNDERLINE);
	buf = malloc(4096);
	for (int y = 0; buf && y < body && v->top + (size_t)y < v->nr_rows; y++) {
		size_t i = v->top + (size_t)y;
		enum tui_heat heat = TUI_COLD;
		int attr = 0;

		buf[0] = '\0';
		v->ops->row(ui, v, i, buf, 4096, &heat, &attr);
		attr |= heat_attr(ui, heat);
		if (i == v->cur)
			attr |= A_REVERSE;
		fill_line(HEAD_ROWS + y, scrolled(buf, v->hscroll), attr);
	}
	free(buf);
	draw_status(ui, v);
	refresh();
}

/* ---- prompts and search ---- */

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}


bool tui_prompt(struct tui *ui, const char *question, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (;;) {
		int key, y;

		draw(ui);
		y = ui->lines - 1;
		fill_line(y, "", A_NORMAL);
		mvprintw(y, 0, "%s%s", question, buf);
		curs_set(1);
		refresh();
		key = getch();
		curs_set(0);
		if (got_signal) {
			ui->quit = true;
			return false;
		}
		if (key == ERR || key == KEY_RESIZE)
			continue;
		if (key == 27) {
			buf[0] = '\0';
			key_start = now_us();
			return false;
		}
		if (key == '\n' || key == '\r' || key == KEY_ENTER) {
			key_start = now_us();	/* the time typing took is not the key's */
			return true;
		}
		if ((key == KEY_BACKSPACE || key == 127 || key == 8) && len)
			buf[--len] = '\0';
		else if (key == 21)	/* ^U */
			buf[len = 0] = '\0';
		else if (key >= ' ' && key < 256 && key != 127 && len + 1 < size) {
			buf[len++] = (char)key;
			buf[len] = '\0';
		}
	}
}

static void search(struct tui *ui, int dir)
{
	struct tui_view *v = top_view(ui);
	size_t n = v->nr_rows;

	if (!ui->search[0]) {
		tui_message(ui, "no search yet: / searches");
		return;
	}
	if (v->ops->search) {
		if (!v->ops->search(ui, v, ui->search, dir))
			tui_message(ui, "'%s' not found", ui->search);
		return;
	}
	if (!v->ops->match) {
		tui_message(ui, "this view has nothing to search");
		return;
	}
	for (size_t k = 1; k <= n; k++) {
		size_t i = dir > 0 ? (v->cur + k) % n : (v->cur + n - k % n) % n;

		if (v->ops->match(ui, v, i, ui->search)) {
			if (dir > 0 ? i <= v->cur : i >= v->cur)
				tui_message(ui, "search wrapped");
			tui_view_goto(ui, v, i);
			return;
		}
	}
	tui_message(ui, "'%s' not found", ui->search);
}

/* ---- keys ---- */

static bool move_key(struct tui *ui, struct tui_view *v, int key)
{
	size_t page = (size_t)tui_body_rows(ui), n = v->nr_rows;

	switch (key) {
	case KEY_UP:
	case 'k':
		if (v->cur)
			v->cur--;
		break;
	case KEY_DOWN:
	case 'j':
		if (v->cur + 1 < n)
			v->cur++;
		break;
	case KEY_PPAGE:
		v->cur = v->cur > page ? v->cur - page : 0;
		v->top = v->top > page ? v->top - page : 0;
		break;
	case KEY_NPAGE:
	case ' ':
		v->cur = v->cur + page < n ? v->cur + page : n ? n - 1 : 0;
		v->top = v->top + page < n ? v->top + page : v->top;
		break;
	case KEY_HOME:
		v->cur = v->top = 0;
		break;
	case KEY_END:
		v->cur = n ? n - 1 : 0;
		break;
	case KEY_LEFT:
		if (v->no_hscroll)
			return false;
		v->hscroll = v->hscroll > 8 ? v->hscroll - 8 : 0;
		break;
	case KEY_RIGHT:
		if (v->no_hscroll)
			return false;
		v->hscroll += 8;
		break;
	default:
		return false;
	}
	return true;
}

static uint32_t fn_at_cursor(struct tui *ui, struct tui_view *v)
{
	uint32_t fn = v->ops->fn_at && v->nr_rows ? v->ops->fn_at(ui, v, v->cur) : CF_NO_FN;

	if (fn == CF_NO_FN)
		tui_message(ui, "no function on this row");
	return fn;
}

static void open_view(struct tui *ui, struct tui_view *v)
{
	if (tui_push(ui, v))
		tui_message(ui, "out of memory opening the view");
}

static void global_key(struct tui *ui, struct tui_view *v, int key)
{
	uint32_t fn;

	switch (key) {
	case 'q':
	case 27:
		if (ui->depth > 1)
			tui_pop(ui);
		else if (key == 'q')
			ui->quit = true;
		else
			tui_message(ui, "q quits");
		break;
	case 'Q':
		ui->quit = true;
		break;
	case '?':
	case KEY_F(1):
		open_view(ui, tui_help_new(ui, v));
		break;
	case '/':
		if (tui_prompt(ui, "search: ", ui->search, sizeof(ui->search)))
			search(ui, 1);
		break;
	case 'n':
		search(ui, 1);
		break;
	case 'N':
		search(ui, -1);
		break;
	case 'c':
		fn = fn_at_cursor(ui, v);
		if (fn != CF_NO_FN)
			open_view(ui, tui_callers_new(ui, fn));
		break;
	case 'a':
		fn = fn_at_cursor(ui, v);
		if (fn != CF_NO_FN)
			open_view(ui, tui_annotate_new(ui, fn));
		break;
	case 't':
		open_view(ui, tui_tree_new(ui, false));
		break;
	case 'f':
		open_view(ui, tui_flow_new(ui));
		break;
	case 'p':
		open_view(ui, tui_picker_new(ui));
		break;
	case 'F':
		while (ui->depth > 1)
			tui_pop(ui);
		break;
	case 12:		  /* ^L */
		clearok(curscr, TRUE);
		break;
	case KEY_RESIZE:
		break;
	default:
		tui_message(ui, "unknown key: ? lists the keys");
		break;
	}
}

static void handle_key(struct tui *ui, int key)
{
	struct tui_view *v = top_view(ui);

	ui->message[0] = '\0';
	if (ui->cols < MIN_COLS || ui->lines < MIN_LINES) {
		if (key == 'q' || key == 'Q')
			ui->quit = true;
		return;
	}
	if (v->ops->key && v->ops->key(ui, v, key))
		return;
	if (!move_key(ui, v, key))
		global_key(ui, v, key);
}

/* Every view over a new selection. */
int tui_select(struct tui *ui, struct tui_sel sel)
{
	struct tui_profile *p = tui_profile_new(ui->d, sel);

	if (!p) {
		tui_message(ui, "out of memory for that selection");
		return -1;
	}
	tui_profile_free(ui->prof);
	ui->prof = p;
	for (size_t i = 0; i < ui->depth; i++) {
		struct tui_view *v = ui->stack[i];

		if (v->ops->reselect && v->ops->reselect(ui, v))
			tui_message(ui, "out of memory rebuilding the %s view", v->ops->name);
	}
	return 0;
}

static const char *key_name_of(int key, char *buf, size_t size)
{
	const char *n = keyname(key);

	snprintf(buf, size, "%s", n ? n : "?");
	for (char *p = buf; *p; p++)
		if (isspace((unsigned char)*p))
			*p = '_';
	return buf;
}

int tui_run(struct tui_data *d, const char *keylog)
{
	struct tui ui = { .d = d };
	FILE *log = NULL;
	int ret, sig;

	ui.prof = tui_profile_new(d, (struct tui_sel){ 0, 0 });
	if (!ui.prof || tui_push(&ui, tui_functions_new(&ui))) {
		tui_profile_free(ui.prof);
		pr_err("out of memory for the viewer");
		return EXIT_RUNTIME;
	}
	if (keylog && !(log = fopen(keylog, "w"))) {
		pr_err("tui: cannot write the key log %s: %s", keylog, strerror(errno));
		ret = EXIT_RUNTIME;
		goto out;
	}
	ret = screen_start(&ui);
	if (ret)
		goto out;
	if (log)
		fprintf(log, "# key  microseconds (handling and drawing)  view\nload %.0f load\n",
			d->load_seconds * 1e6);
	draw(&ui);
	while (!ui.quit && !got_signal) {
		int key = getch();
		char name[64];

		if (key == ERR)
			continue;
		key_start = now_us();
		handle_key(&ui, key);
		if (ui.quit)
			break;
		draw(&ui);
		if (log) {
			fprintf(log, "%s %.0f %s\n", key_name_of(key, name, sizeof(name)),
				now_us() - key_start, top_view(&ui)->ops->name);
			fflush(log);
		}
	}
	screen_stop();
out:
	while (ui.depth)
		tui_pop(&ui);
	free(ui.stack);
	tui_profile_free(ui.prof);
	if (log)
		fclose(log);
	sig = got_signal;
	if (sig) {
		/* die of the signal, as if it had not been caught: the terminal is back */
		set_signals(SIG_DFL);
		raise(sig);
		return 128 + sig;
	}
	return ret;
}
