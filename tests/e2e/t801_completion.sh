#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bash completion of pitrace and post (completion/*.bash) through
# bash-completion, as an interactive shell runs it: COMP_WORDS split the
# way readline splits a line, the function called, COMPREPLY checked.
# Commands, options as --help names them, option values, pids, and the
# names of a real trace for --symbol (C++ names too), --module, --pid.
. "$(dirname "$0")/lib.sh"

BC=/usr/share/bash-completion/bash_completion
[ -r "$BC" ] || skip "bash-completion is not installed (make deps)"
# The source tree's files, or (PT_COMPLETION_DIR) installed ones, which
# have the command's name.
COMP_DIR=${PT_COMPLETION_DIR:-$ROOT/completion}
suffix=.bash
[ -f "$COMP_DIR/pitrace$suffix" ] || suffix=
[ -f "$COMP_DIR/pitrace$suffix" ] || fail "no completion file for pitrace in $COMP_DIR"

"$PITRACE" record -o names.data -- "$PROGS/arc_names" >/dev/null 2>&1 ||
	fail "cannot record arc_names"

# complete LINE: the completions bash would offer at the end of LINE, one
# a line, sorted.  Words split at blanks, and at = and : (COMP_WORDBREAKS),
# which become words of their own, as readline does.
complete_line() {
	bash -c '
		line=$3
		# only the command'"'"'s file, as bash-completion loads it on first use
		. "$1"; . "$2/$(basename "${line%% *}")$4"
		read -ra blank <<<"$line"
		[[ $line == *" " ]] && blank+=("")
		COMP_WORDS=()
		for w in "${blank[@]}"; do
			while [[ $w =~ ^([^=:]*)([=:]+)(.*)$ ]]; do
				[ -n "${BASH_REMATCH[1]}" ] && COMP_WORDS+=("${BASH_REMATCH[1]}")
				COMP_WORDS+=("${BASH_REMATCH[2]}")
				w=${BASH_REMATCH[3]}
			done
			[[ -n $w || ${#COMP_WORDS[@]} -eq 0 || $line == *" " ]] && COMP_WORDS+=("$w")
		done
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$line COMP_POINT=${#line} COMP_TYPE=9 COMP_KEY=9
		spec=$(complete -p "${COMP_WORDS[0]##*/}") || exit 3
		fn=${spec#*-F }; fn=${fn%% *}
		"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}"' complete "$BC" "$COMP_DIR" "$1" "$suffix" | sort -u
}

# expect_completion LINE WORD...: offered, each of WORD
expect_completion() {
	local line=$1 out w
	shift
	out=$(complete_line "$line")
	for w in "$@"; do
		grep -qxF -- "$w" <<<"$out" ||
			fail "'$line<TAB>' does not offer '$w'; it offers: $(tr '\n' ' ' <<<"$out")"
	done
}

# expect_only LINE WORD...: offered, exactly these
expect_only() {
	local line=$1 out want
	shift
	out=$(complete_line "$line")
	want=$(printf '%s\n' "$@" | sort -u)
	[ "$out" = "$want" ] ||
		fail "'$line<TAB>' offers '$(tr '\n' ' ' <<<"$out")', expected '$(tr '\n' ' ' <<<"$want")'"
}

# The files register their functions for the command names.
for c in pitrace post; do
	spec=$(bash -c '. "$1"; . "$2/$3$4"; complete -p "$3"' x "$BC" "$COMP_DIR" $c "$suffix") ||
		fail "$COMP_DIR/$c$suffix registers no completion for $c"
	expect_eq "complete -p $c" "complete -F _$c $c" "$spec"
done

P=$PITRACE Q="$POST"
# pitrace: commands, then each command's options, values and operands.
expect_only "$P " record attach start stop status on off archive
expect_only "$P re" record
expect_completion "$P archive --" --output --debug-dir --buildid-dir --unpack --help
expect_only "$P --v" --verbose --version
expect_completion "$P record -" -o --output --mode --follow-fork --on -z --compress --no-pin \
	--aslr --backend --buffer-size --kernel --kernel-limit --help --
expect_completion "$P start --" --all --pid --pid-range --pid-min --comm --tree --mode \
	--buffer-size --wrap --stop-when-full --off --kernel --kernel-limit --compress --output
expect_only "$P attach --mo" --mode
expect_only "$P record --mode " block count step
expect_only "$P attach --mode " block step
expect_only "$P start --mode " block count step
expect_only "$P record --backend " driver ptrace
expect_only "$P record --backend driver --mode " block count step
expect_only "$P record --backend=ptrace --mode " block step
expect_only "$P record --backend ptrace --b" --backend
expect_only "$P record --kernel=" syscalls
expect_only "$P status -" --help
expect_completion "$P attach -p $$" "$$"
expect_completion "$P start -p 1,$$" "1,$$"
expect_completion "$P start --tree $$" "$$"
expect_completion "$P start --comm bas" bash
mkdir -p outdir.d
expect_only "$P record -o outd" outdir.d
# The traced command: after --, or the first operand (options with a value skipped).
expect_completion "$P record -- basenam" basename
expect_completion "$P record -o x --mode step basenam" basename

# post: reports, options (common ones before the report too), values.
expect_only "$Q " info dump counts arc tree profile flow annotate steps export diff tui script
expect_only "$Q -i names.data ar" arc
expect_completion "$Q -" -i -v --force --vmlinux --debug-dir --no-demangle \
	--help --version
out=$(complete_line "$Q -")
grep -qx -- --condensed <<<"$out" && fail "'post -' offers flow's --condensed"
expect_completion "$Q counts --" --by --pid --tid --module --top --ring --force --vmlinux
expect_completion "$Q flow --" --from --to --condensed --no-interrupts --symbol --force
expect_completion "$Q flow -" -i -v
out=$(complete_line "$Q flow --")
grep -qx -- --version <<<"$out" && fail "'post flow --' offers --version (post takes it before a report only)"
expect_only "$Q counts --by " process thread module symbol line insn
expect_only "$Q arc --ring " user kernel all
expect_only "$Q export --format " callgrind folded svg chrome
expect_only "$Q export --clock " time steps
expect_only "$Q export --prefix " comm pid tid
expect_only "$Q annotate --percent " function total
# Names from the trace given by -i, or pitrace.data.
expect_only "$Q -i names.data arc --symbol " _ZN3foo _start i 'ns::f(int)' 'odd;name'
expect_only "$Q -i names.data arc --symbol _" _ZN3foo _start
expect_only "$Q arc -i names.data --no-demangle --symbol _ZN2" _ZN2ns1fEi
# A colon ends a word for readline: the completion is the part after it.
expect_only "$Q -i names.data tree --symbol ns::" 'f(int)'
expect_only "$Q -i names.data counts --module " arc_names
pid=$("$POST" -i names.data --list pids)
expect_only "$Q --input=names.data flow --pid " "$pid"
mv names.data pitrace.data
expect_only "$Q flow --tid " "$pid"
expect_only "$Q steps --symbol od" 'odd;name'
# No trace: nothing to offer, and no error on the terminal.
rm -rf pitrace.data
expect_only "$Q arc --symbol "
exit 0
