#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The man pages (docs/man/*.md rendered by pandoc: make man) against the
# commands' --help: every command of pitrace and post has its page, every
# option a --help names appears in its page, and every option a page's
# OPTIONS (or SELECTION) section defines is one --help names, so neither can
# drift from the other.  Pages are read as man(1) shows them.  Options are
# found generically: words starting with '-' (and a letter).
. "$(dirname "$0")/lib.sh"

MAN_DIR=${PT_MAN_DIR:-$ROOT/build/man}
compgen -G "$MAN_DIR/*.1" >/dev/null || skip "no man pages in $MAN_DIR (make man)"
command -v man >/dev/null || skip "man is not installed"

# options < TEXT: the options TEXT names, one a line ("--kernel[=x]" names --kernel)
options() {
	grep -oE -- '(^|[][[:space:],|(/])--?[[:alpha:]][[:alnum:]-]*' | sed 's/^[^-]*//' | sort -u
}

# render PAGE: the page as man shows it, one line per paragraph (no
# hyphenation at line ends), plain text; rendered once
render() {
	[ -f "$TMP/$1.txt" ] ||
		MANWIDTH=2000 MAN_KEEP_FORMATTING= man -l "$MAN_DIR/$1" 2>/dev/null | col -bx >"$TMP/$1.txt"
	cat "$TMP/$1.txt"
}

# defined PAGE: the options defined in the page's OPTIONS and SELECTION
# sections: the terms of its option list, the lines indented 7 spaces that
# start with '-'
defined() {
	render "$1" | awk '/^[A-Z]/ { on = ($0 == "OPTIONS" || $0 == "SELECTION"); next }
		on && /^       -/' | options
}

# commands PROG: the words of PROG --help that PROG runs as commands
commands() {
	local w
	for w in $("$1" --help | grep -oE '\b[a-z]+\b' | sort -u); do
		"$1" "$w" --help >/dev/null 2>&1 && echo "$w"
	done
}

# check_page PAGE HELP_TEXT PARENT_HELP_TEXT
check_page() {
	local page=$1 help=$2 parent=$3 text o
	[ -f "$MAN_DIR/$page" ] || fail "no man page $page"
	text=$(render "$page")
	[ -n "$text" ] || fail "man cannot show $page"
	for o in $(options <<<"$help"); do
		grep -qE -- "(^|[^[:alnum:]-])$o([^[:alnum:]-]|$)" <<<"$text" ||
			fail "$page does not mention $o (which --help names)"
		checked=$((checked + 1))
	done
	for o in $(defined "$page"); do
		case $o in -h | --help) continue ;; esac
		options <<<"$help"$'\n'"$parent" | grep -qxF -- "$o" ||
			fail "$page defines $o, which --help does not name"
	done
}

checked=0
top=$("$PITRACE" --help)
check_page pitrace.1 "$top" ""
cmds=$(commands "$PITRACE")
[ -n "$cmds" ] || fail "found no pitrace command in its --help"
for c in $cmds; do
	help=$("$PITRACE" "$c" --help)
	# record's help is the backend's that would run: check both.
	[ "$c" = record ] && help=$("$PITRACE" record --backend ptrace --help
		"$PITRACE" record --backend driver --help)
	check_page "pitrace-$c.1" "$help" "$top"
done

top=$("$POST" --help)
check_page post.1 "$top" ""
reports=$(commands "$POST")
[ -n "$reports" ] || fail "found no post report in its --help"
for c in $reports; do
	check_page "post-$c.1" "$("$POST" "$c" --help)" "$top"
done

# Sections 4 and 5 render, and say what they are.
for page in pitrace-trace-format.5 pitrace.ko.4; do
	text=$(render "$page")
	grep -q '^NAME' <<<"$text" || fail "$page has no NAME section"
done
grep -q '^ *CLAIM(config) ' <<<"$(render pitrace.ko.4)" || fail "pitrace.ko(4) lacks the ioctl table"
grep -q 'PT_FORMAT_VERSION\|min_reader' <<<"$(render pitrace-trace-format.5)" ||
	fail "pitrace-trace-format(5) lacks the versioning"
echo "checked $checked options of $(wc -w <<<"$cmds") pitrace and $(wc -w <<<"$reports") post commands"
exit 0
