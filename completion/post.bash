# SPDX-License-Identifier: GPL-2.0
# bash completion for post(1): the reports, their options and the common
# ones as --help names them, option values (--by, --ring, --format, ...),
# and from the trace named by -i (default pitrace.data) the names that
# --symbol, --module, --pid and --tid take (post --list, which reads only
# the trace's task records and the modules' symbol tables).  Installed as
# .../bash-completion/completions/post.

# The --help parsers are pitrace's (installed as "pitrace" next to this
# file, pitrace.bash in the source tree); loading it also completes pitrace.
if ! declare -F _pitrace_help_opts >/dev/null; then
	for _post_f in "${BASH_SOURCE[0]%/*}"/pitrace "${BASH_SOURCE[0]%/*}"/pitrace.bash; do
		# shellcheck source=completion/pitrace.bash
		[ -f "$_post_f" ] && . "$_post_f" && break
	done
	unset _post_f
fi

# _post_complete_names CUR: COMPREPLY from the lines on stdin that start
# with CUR.  Names may hold spaces, parentheses, commas and colons (C++):
# readline quotes them (-o filenames), and the part of CUR up to its last
# colon, which readline keeps as a separate word, is taken off.
_post_complete_names()
{
	local cur=$1 name
	COMPREPLY=()
	while IFS= read -r name; do
		[[ $name == "$cur"* ]] && COMPREPLY+=("$name")
	done
	compopt -o filenames 2>/dev/null
	__ltrim_colon_completions "$cur"
}

# _post_dequote WORD: the word as typed, without its quoting (never evaluated).
_post_dequote()
{
	local w=$1
	case $w in
	\'*) w=${w#\'}; w=${w%\'} ;;
	\"*) w=${w#\"}; w=${w%\"}; w=$(sed 's/\\\(.\)/\1/g' <<<"$w") ;;
	*) w=$(sed 's/\\\(.\)/\1/g' <<<"$w") ;;
	esac
	printf '%s' "$w"
}

_post()
{
	local cur prev words cword split
	_init_completion -s -n : || return

	local prog=${words[0]} cmd='' dir=pitrace.data i w names_as=''
	# The options every report takes: post's own, the "Options" and "Trace
	# and symbols" groups of "post --help" (the rest lists the reports).
	local common
	common=$("$prog" --help 2>/dev/null | sed -n '/^[A-Z][A-Za-z ()]*:$/,$p' | sed '/^Commands:$/,/^$/d')
	local common_argopts
	common_argopts=$(_pitrace_help_argopts <<<"$common")
	# The trace directory and the report, wherever they are on the line.
	for ((i = 1; i < cword; i++)); do
		w=${words[i]}
		case $w in
		-i | --input) ((i + 1 < cword)) && dir=${words[i + 1]} ;;
		--input=*) dir=${w#--input=} ;;
		--no-demangle) names_as=--no-demangle ;;
		esac
		if [[ $w == -* ]]; then
			grep -qxF -- "$w" <<<"$common_argopts" && ((i++))
		elif [[ -z $cmd ]]; then
			cmd=$w
		fi
	done
	dir=$(_post_dequote "$dir")
	# shellcheck disable=SC2088 # a "~/" typed on the line, not expanded there
	[[ $dir == "~/"* ]] && dir=$HOME/${dir#"~/"}

	local help=$common
	[[ -n $cmd ]] && help=$("$prog" "$cmd" --help 2>/dev/null)$'\n'$common
	case $prev in
	-i | --input | --debug-dir | --source-dir | --symfs | --buildid-dir)
		_filedir -d
		return ;;
	--vmlinux | -o)
		_filedir
		return ;;
	--symbol)
		_post_complete_names "$(_post_dequote "$cur")" < <("$prog" -i "$dir" $names_as --list symbols 2>/dev/null)
		return ;;
	--module)
		_post_complete_names "$cur" < <("$prog" -i "$dir" --list modules 2>/dev/null)
		return ;;
	--pid)
		mapfile -t COMPREPLY < <(compgen -W "$("$prog" -i "$dir" --list pids 2>/dev/null)" -- "$cur")
		return ;;
	--tid)
		mapfile -t COMPREPLY < <(compgen -W "$("$prog" -i "$dir" --list tids 2>/dev/null)" -- "$cur")
		return ;;
	esac
	if grep -qxF -- "$prev" <<<"$(_pitrace_help_argopts <<<"$help")"; then
		local values
		values=$(_pitrace_help_values "$prev" <<<"$help")
		# Values the help gives in prose, not as a|b|c.
		[[ -z $values ]] && case $prev in
		--ring) values="user kernel all" ;;
		--format) values="callgrind folded svg chrome" ;;
		--clock) values="time steps" ;;
		esac
		mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
		return
	fi
	[[ $split == true ]] && return
	if [[ $cur == -* ]]; then
		local opts
		opts="$(_pitrace_help_opts <<<"$help" | grep -vx -- --version) --help"
		[[ -z $cmd ]] && opts+=" --version"	# before a report only
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur" | sort -u)
	elif [[ -z $cmd ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_pitrace_commands "$prog")" -- "$cur")
	elif [[ $cmd == dump ]]; then
		# FILE: a file of the trace, or any path
		mapfile -t COMPREPLY < <(cd "$dir" 2>/dev/null && compgen -f -- "$cur")
		((${#COMPREPLY[@]})) || _filedir
	fi
}
complete -F _post post
