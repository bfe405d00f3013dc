# SPDX-License-Identifier: GPL-2.0
# bash completion for pitrace(1): the commands, each command's options as
# its --help names them, option values (--mode, --backend, ...), running
# processes for -p/--pid/--tree (comma lists too) and --comm, directories
# for -o, and after "--" (or the first operand of record) the traced
# command; archive's trace directory, or with --unpack its archives.  Installed as .../bash-completion/completions/pitrace.

# The --help parsers, which completion/post.bash uses too.
# _pitrace_help_opts: the options named in the help text on stdin, one a
# line ("--kernel[=syscalls]" names --kernel).  Options start with '-'.
_pitrace_help_opts()
{
	grep -oE -- '(^|[][[:space:],|(])--?[[:alpha:]][[:alnum:]-]*' | sed 's/^[^-]*//' | sort -u
}

# _pitrace_help_argopts: those that take an argument: followed by an
# upper-case word or a value list ("-o, --output DIR", "--mode step|block"),
# with the short form on the same line.
_pitrace_help_argopts()
{
	grep -E -- '--?[[:alpha:]][[:alnum:]-]*(=| )([A-Z][A-Z_]*|[a-z]+(\|[a-z]+)+)' |
		grep -oE -- '(^|[][[:space:],|(])--?[[:alpha:]][[:alnum:]-]*(,|(=| )([A-Z][A-Z_]*|[a-z]+(\|[a-z]+)+))' |
		grep -oE -- '--?[[:alpha:]][[:alnum:]-]*' | sort -u
}

# _pitrace_help_values OPTION: the values the help on stdin lists as
# "OPTION a|b|c" or "OPTION[=a]".
_pitrace_help_values()
{
	grep -oE -- "(^|[^[:alnum:]-])$1(\[=[a-z]+(\|[a-z]+)*|[ =][a-z]+(\|[a-z]+)+)" |
		sed -E 's/.*(=| )//' | tr '|' '\n' | sort -u
}

# _pitrace_commands PROG: the commands, from the indented name column of
# "PROG --help" ("  record   trace a command ..."); post's reports too.
_pitrace_commands()
{
	"$1" --help 2>/dev/null | sed -nE 's/^[[:space:]]+([a-z][a-z-]*)[[:space:]]{2,}.*/\1/p'
}

_pitrace_complete_list() # _pitrace_complete_list CUR WORD...: COMPREPLY from the words, each once
{
	local cur=$1
	shift
	mapfile -t COMPREPLY < <(compgen -W "$*" -- "$cur" | sort -u)
}

_pitrace()
{
	local cur prev words cword split
	_init_completion -s || return

	local prog=${words[0]} cmd='' cmd_at='' i
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-*) ;;
		*) cmd=${words[i]} cmd_at=$i; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			_pitrace_complete_list "$cur" -v --verbose -h --help --version
		else
			_pitrace_complete_list "$cur" "$(_pitrace_commands "$prog")"
		fi
		return
	fi

	local help
	if [[ $cmd == record ]]; then
		# The backend's options: the one given, else either.
		local backend="ptrace driver"
		for ((i = cmd_at + 1; i < cword; i++)); do
			case ${words[i]} in
			--backend) backend=${words[i + 1]} ;;
			--backend=*) backend=${words[i]#--backend=} ;;
			--) break ;;
			esac
		done
		for i in $backend; do
			help+=$("$prog" record --backend "$i" --help 2>/dev/null)$'\n'
		done
	else
		help=$("$prog" "$cmd" --help 2>/dev/null)
	fi
	local argopts
	argopts=$(_pitrace_help_argopts <<<"$help")
	[[ $cmd == record ]] && argopts+=$'\n--backend'	# taken before either backend's options

	# record: after "--" or its first operand, complete the traced command.
	if [[ $cmd == record ]]; then
		for ((i = cmd_at + 1; i < cword; i++)); do
			if [[ ${words[i]} == -- ]]; then
				_command_offset $((i + 1))
				return
			fi
			[[ ${words[i]} == -* ]] && { grep -qxF -- "${words[i]}" <<<"$argopts" && ((i++)); continue; }
			_command_offset "$i"
			return
		done
	fi

	case $prev in
	-o | --output)
		if [[ $cmd == archive ]]; then _filedir; else _filedir -d; fi
		return ;;
	--debug-dir | --buildid-dir)
		_filedir -d
		return ;;
	-p | --pid)
		# a comma-separated list: complete its last element
		local last=${cur##*,}
		mapfile -t COMPREPLY < <(compgen -P "${cur%"$last"}" -W "$(ps -eo pid=)" -- "$last")
		return ;;
	--tree)
		_pitrace_complete_list "$cur" "$(ps -eo pid=)"
		return ;;
	--comm)
		_pitrace_complete_list "$cur" "$(ps -eo comm= | sort -u)"
		return ;;
	--backend)
		_pitrace_complete_list "$cur" ptrace driver
		return ;;
	--kernel)
		[[ $split == true ]] && _pitrace_complete_list "$cur" "$(_pitrace_help_values --kernel <<<"$help")"
		return ;;
	esac
	if grep -qxF -- "$prev" <<<"$argopts"; then
		# a value list in the help ("--mode step|block"), else nothing to offer
		_pitrace_complete_list "$cur" "$(_pitrace_help_values "$prev" <<<"$help")"
		return
	fi
	[[ $split == true ]] && return
	# archive's operand: a trace directory, or with --unpack archives.
	if [[ $cmd == archive && $cur != -* ]]; then
		if [[ " ${words[*]} " == *" --unpack "* ]]; then
			_filedir '@(zst|tar)'
		else
			_filedir -d
		fi
		return
	fi
	if [[ $cur == -* || $cmd != record ]]; then
		local opts
		opts="$(_pitrace_help_opts <<<"$help") --help"
		[[ $cmd == record ]] && opts+=" --"
		_pitrace_complete_list "$cur" "$opts"
	else
		_command_offset "$cword"
	fi
}
complete -F _pitrace pitrace
