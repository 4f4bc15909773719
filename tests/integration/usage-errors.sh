#!/usr/bin/env bash
# Must still work: misuse exits 2 with usage on stderr and nothing on stdout; --help exits 0 with
# the help on stdout and nothing on stderr.
. "$(dirname "$0")/../lib/tap.sh"

# usage_error DESCRIPTION EXPECTED-MESSAGE ARGS...: exit 2, the message and usage on stderr only.
usage_error() {
        local desc=$1 msg=$2; shift 2
        local so se rc
        so=$(cd "$T_PROJECT" && "$CORDON" "$@" 2>"$T_TMP/stderr"); rc=$?
        se=$(cat "$T_TMP/stderr")
        if [ "$rc" = 2 ] && [ -z "$so" ] && [[ $se == *"$msg"* ]] && [[ $se == *"Usage: cordon"* ]]; then
                ok "$desc"
        else
                not_ok "$desc" "rc=$rc (want 2)" "stdout: $so" "stderr: $se" "want in stderr: $msg"
        fi
}

plan 12
usage_error "no arguments" "" 
usage_error "unknown command" "unknown command 'frobnicate'" frobnicate
usage_error "run without a command" "no command given" run
usage_error "run -- without a command" "no command given" run --quiet --
usage_error "unknown option" "unknown option '--bogus'" run --bogus -- true
usage_error "option without its argument" "option '--ro' needs an argument" run --ro
usage_error "bad --home-access" "--home-access 'everything'" run --home-access everything -- true
usage_error "bad --setenv" "--setenv 'NOEQUALS': expected NAME=VALUE" run --setenv NOEQUALS -- true
usage_error "relative --allow-parent" "must be an absolute path" run --allow-parent rel -- true
so=$("$CORDON" run --help 2>"$T_TMP/stderr"); rc=$?
check "run --help: exit 0, nothing on stderr" "0:" "$rc:$(cat "$T_TMP/stderr")"
case $so in
"Usage: cordon run"*--project-dir*--home-access*--quiet*) ok "run --help: the help is on stdout" ;;
*) not_ok "run --help: the help is on stdout" "stdout: $so" ;;
esac
so=$("$CORDON" --help 2>"$T_TMP/stderr"); rc=$?
check "cordon --help: exit 0, usage on stdout, nothing on stderr" "0:Usage: cordon COMMAND [OPTIONS]:" \
        "$rc:$(printf '%s\n' "$so" | head -1):$(cat "$T_TMP/stderr")"
