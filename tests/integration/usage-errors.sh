#!/usr/bin/env bash
# Must still work: misuse exits 2 with exactly one line on stderr (what is wrong, the nearest
# option or command when one is close, and where the help is) and nothing on stdout; --help exits
# 0 with the help on stdout and nothing on stderr; `cordon` alone prints the usage on stderr.
. "$(dirname "$0")/../lib/tap.sh"

# usage_error DESCRIPTION EXPECTED-LINE ARGS...: exit 2, exactly EXPECTED-LINE on stderr, nothing
# on stdout.
usage_error() {
        local desc=$1 want=$2; shift 2
        local so se rc lines
        so=$(cd "$T_PROJECT" && "$CORDON" "$@" 2>"$T_TMP/stderr"); rc=$?
        se=$(cat "$T_TMP/stderr")
        lines=$(wc -l <"$T_TMP/stderr")
        if [ "$rc" = 2 ] && [ -z "$so" ] && [ "$lines" = 1 ] && [ "$se" = "$want" ]; then
                ok "$desc"
        else
                not_ok "$desc" "rc=$rc (want 2), $lines lines on stderr (want 1)" "stdout: $so" \
                        "stderr: $se" "want:   $want"
        fi
}

see_run="; see 'cordon run --help'"
plan 27
usage_error "unknown command, with the nearest one" \
        "cordon: unknown command 'rnu' (did you mean 'run'?); see 'cordon --help'" rnu
usage_error "unknown command, nothing near" \
        "cordon: unknown command 'frobnicate'; see 'cordon --help'" frobnicate
usage_error "help of an unknown command" \
        "cordon: unknown command 'doctr' (did you mean 'doctor'?); see 'cordon --help'" help doctr
usage_error "unknown option of cordon itself" \
        "cordon: unknown option '--verison' (did you mean '--version'?); see 'cordon --help'" --verison
usage_error "run without a command" "cordon: no command given$see_run" run
usage_error "run -- without a command" "cordon: no command given$see_run" run --quiet --
usage_error "mistyped option, with the nearest one" \
        "cordon: unknown option '--alow-host' (did you mean '--allow-host'?)$see_run" \
        run --alow-host x -- true
usage_error "mistyped option with =VALUE: the value is not repeated" \
        "cordon: unknown option '--alow-host' (did you mean '--allow-host'?)$see_run" \
        run --alow-host=secret -- true
usage_error "unknown option, nothing near" "cordon: unknown option '--bogus'$see_run" \
        run --bogus -- true
usage_error "ambiguous abbreviation" \
        "cordon: option '--allow' is ambiguous: '--allow-parent', '--allow-host' or '--allow-only'$see_run" \
        run --allow x -- true
usage_error "unknown short option" "cordon: unknown option '-Z'$see_run" run -Z -- true
usage_error "option without its argument" "cordon: option '--ro' needs an argument$see_run" run --ro
usage_error "--set without NAME=VALUE" "cordon: option '--set' needs an argument$see_run" run --set
usage_error "--set of a bad form" "cordon: --set 'NOEQUALS': expected NAME=VALUE$see_run" \
        run --set NOEQUALS -- true
usage_error "--set of a mistyped variable" \
        "cordon: --set 'PROJCT_DIR': no such configuration variable (did you mean 'PROJECT_DIR'?)$see_run" \
        run --set PROJCT_DIR=/tmp -- true
usage_error "a flag given a value" "cordon: option '--quiet' takes no argument$see_run" \
        run --quiet=yes -- true
usage_error "bad --home-access" \
        "cordon: --home-access 'everything': expected tmpwrite, restricted, read or write$see_run" \
        run --home-access everything -- true
usage_error "bad --setenv" "cordon: --setenv 'NOEQUALS': expected NAME=VALUE$see_run" \
        run --setenv NOEQUALS -- true
usage_error "doctor: mistyped option" \
        "cordon: unknown option '--jsn' (did you mean '--json'?); see 'cordon doctor --help'" \
        doctor --jsn
usage_error "policy: mistyped subcommand" \
        "cordon: unknown policy subcommand 'shwo' (did you mean 'show'?); see 'cordon policy --help'" \
        policy shwo x.json
usage_error "config: mistyped subcommand" \
        "cordon: unknown config subcommand 'explian' (did you mean 'explain'?); see 'cordon config --help'" \
        config explian KEY

# A relative --allow-parent: one line that says why (the exact wording is the registry's).
so=$(cd "$T_PROJECT" && "$CORDON" run --allow-parent rel -- true 2>"$T_TMP/stderr"); rc=$?
check "relative --allow-parent: exit 2, one line naming it" "2:1:yes" \
        "$rc:$(wc -l <"$T_TMP/stderr"):$(grep -q -- "--allow-parent.*must be an absolute path.*$see_run" "$T_TMP/stderr" && echo yes)"

so=$("$CORDON" 2>"$T_TMP/stderr"); rc=$?
check "no arguments: exit 2, the usage on stderr" "2::Usage: cordon COMMAND [OPTIONS]" \
        "$rc:$so:$(head -1 "$T_TMP/stderr")"
so=$("$CORDON" run --help 2>"$T_TMP/stderr"); rc=$?
check "run --help: exit 0, nothing on stderr" "0:" "$rc:$(cat "$T_TMP/stderr")"
case $so in
"Usage: cordon run"*--project-dir*--home-access*--quiet*) ok "run --help: the help is on stdout" ;;
*) not_ok "run --help: the help is on stdout" "stdout: $so" ;;
esac
so=$("$CORDON" --help 2>"$T_TMP/stderr"); rc=$?
check "cordon --help: exit 0, usage on stdout, nothing on stderr" "0:Usage: cordon COMMAND [OPTIONS]:" \
        "$rc:$(printf '%s\n' "$so" | head -1):$(cat "$T_TMP/stderr")"
so=$("$CORDON" help run 2>"$T_TMP/stderr"); rc=$?
check "cordon help run: exit 0, the run help on stdout" "0:Usage: cordon run [OPTIONS] [--] COMMAND [ARGS...]:" \
        "$rc:$(printf '%s\n' "$so" | head -1):$(cat "$T_TMP/stderr")"
