# bash completion for cordon(1). Installed as bash-completion's completions/cordon; works on its
# own too (`. cordon.bash`), without bash-completion's helper functions.
# The option lists follow `cordon COMMAND --help` (tests/integration/install.sh checks that every
# option of `cordon run --help` is offered here).

_cordon_run_opts='--project-dir -p --allow-parent --home-access --ro --rw --mask --hide
        --device --setenv --backend --profile --policy --receipt --timeout --memory --pids
        --cpus --cgroup --tmp-size --no-pty --terminal-passthrough --quiet -q --git-writable
        --net --block --allow-host --network-policy --proxy-dns --net-log
        --cleanup-materialized --set --dry-run --help -h'
# The options of `cordon run` that take a value (the next word).
_cordon_run_args='--project-dir -p --allow-parent --home-access --ro --rw --mask --hide --device
        --setenv --backend --profile --policy --receipt --timeout --memory --pids --cpus
        --cgroup --tmp-size --net --block --allow-host --network-policy --proxy-dns --net-log
        --set'

# _cordon_reply WORDS: the words of WORDS that start with the current word.
_cordon_reply() {
        local IFS=$' \t\n'
        # shellcheck disable=SC2207 # compgen prints one candidate per line, none with spaces
        COMPREPLY=($(compgen -W "$1" -- "$cur"))
}

_cordon_files() { # _cordon_files [-d]: file (or directory) names, spaces kept
        local IFS=$'\n'
        # shellcheck disable=SC2207
        COMPREPLY=($(compgen "${1:--f}" -- "$cur"))
        compopt -o filenames 2>/dev/null
}

# _cordon_value OPTION: completes the value of OPTION; returns 1 when OPTION takes none.
_cordon_value() {
        case $1 in
        --backend) _cordon_reply 'auto ns landlock' ;;
        --net) _cordon_reply 'filtered proxied open isolated' ;;
        --home-access) _cordon_reply 'tmpwrite restricted read write' ;;
        --profile) _cordon_reply 'worktree os_hardened unrestricted' ;;
        -p | --project-dir | --allow-parent | --cgroup) _cordon_files -d ;;
        --ro | --rw | --mask | --hide | --policy | --receipt | --network-policy | --net-log)
                _cordon_files ;;
        --device | --setenv | --timeout | --memory | --pids | --cpus | --tmp-size | --block | \
                --allow-host | --proxy-dns | --set) COMPREPLY=() ;;
        *) return 1 ;;
        esac
}

_cordon_run() {
        local i w
        # After `--` or the first operand the rest is the command and its arguments.
        for ((i = 2; i < COMP_CWORD; i++)); do
                w=${COMP_WORDS[i]}
                if [ "$w" = -- ]; then
                        _cordon_command $((i + 1))
                        return
                fi
                case $w in
                = | --*=*) ;;
                -*) [[ " ${_cordon_run_args//$'\n'/ } " == *" $w "* ]] &&
                        [ "${COMP_WORDS[i + 1]:-}" != = ] && i=$((i + 1)) ;;
                *)
                        _cordon_command "$i"
                        return
                        ;;
                esac
        done
        _cordon_value "$prev" && return
        if [[ $cur == -* ]]; then
                _cordon_reply "$_cordon_run_opts"
        else
                _cordon_command "$COMP_CWORD"
        fi
}

# _cordon_command START: completes a command line that begins at word START.
_cordon_command() {
        if [ "$COMP_CWORD" -eq "$1" ]; then
                local IFS=$'\n'
                # shellcheck disable=SC2207
                COMPREPLY=($(compgen -c -- "$cur" | sort -u))
        else
                _cordon_files
        fi
}

_cordon() {
        local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]:-}
        COMPREPLY=()
        # --net=open: bash splits at '=', so the option is the word before the '='.
        if [ "$cur" = = ]; then
                prev=${COMP_WORDS[COMP_CWORD - 1]} cur=
        elif [ "$prev" = = ] && [ "$COMP_CWORD" -ge 2 ]; then
                prev=${COMP_WORDS[COMP_CWORD - 2]}
        fi

        if [ "$COMP_CWORD" -eq 1 ]; then
                _cordon_reply 'run doctor policy config help --help --version'
                return
        fi
        local sub=${COMP_WORDS[1]} n=0 i
        # n: the operands of the subcommand before the current word
        for ((i = 2; i < COMP_CWORD; i++)); do
                case ${COMP_WORDS[i]} in
                -p | --project-dir) i=$((i + 1)) ;;
                -*) ;;
                *) n=$((n + 1)) ;;
                esac
        done
        case $sub in
        run) _cordon_run ;;
        doctor) _cordon_reply '--json --help -h' ;;
        help) [ "$COMP_CWORD" -eq 2 ] && _cordon_reply 'run doctor policy config' ;;
        config)
                case $prev in -p | --project-dir) _cordon_files -d; return ;; esac
                if [[ $cur == -* ]]; then
                        _cordon_reply '--json --project-dir -p --help -h'
                elif [ "$n" -eq 0 ]; then
                        _cordon_reply 'show explain'
                else
                        _cordon_files # explain PATH
                fi
                ;;
        policy)
                if [[ $cur == -* ]]; then
                        _cordon_reply '--help -h'
                elif [ "$n" -eq 0 ]; then
                        _cordon_reply 'show intersect'
                else
                        _cordon_files
                fi
                ;;
        esac
}
complete -F _cordon cordon
