#!/usr/bin/env bash
# The cordon(1) man page lints clean and documents every option and command the binary offers.
# Options are written in the page with \- for each hyphen (\-\-project\-dir); each must have a
# .TP entry of its own in OPTIONS, and each command must appear in bold in COMMANDS.
# libcordon(3) lints clean too and names every function of the public headers.
# Needs man/ and include/ staged next to tests/ (at $T_SRC/man/cordon.1).
# shellcheck disable=SC1091 # staged by run-tap.sh
. "$T_SRC/tests/lib/tap.sh"

page="$T_SRC/man/cordon.1"

# section NAME [PAGE]: the roff source between ".SH NAME" and the next ".SH" (of cordon.1).
section() {
        awk -v want="$1" '/^\.SH / { sub(/^\.SH +/, ""); gsub(/"/, ""); on = ($0 == want); next } on' "${2:-$page}"
}

# roff NAME: how a long option is spelled in the page.
roff() { printf '\\-\\-%s' "${1//-/\\-}"; }

# Long options from the generated help texts (the option tables), commands from `cordon --help`.
run_opts=$("$CORDON" run --help | sed -n 's/^ \{1,\}\(-[a-zA-Z], \)\{0,1\}--\([a-z0-9-]*\).*/\2/p')
top_opts=$("$CORDON" --help | sed -n 's/^ \{1,\}\(-[a-zA-Z], \)\{0,1\}--\([a-z0-9-]*\).*/\2/p')
commands=$("$CORDON" --help | awk '/^Commands:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }')

# cordon-session(1): the commands of `cordon session --help`, and the long options of its help
# and of each command's.
s_page="$T_SRC/man/cordon-session.1"
s_commands=$("$CORDON" session --help | awk '/^Commands:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }')
s_opts=$({
        "$CORDON" session --help
        for c in $s_commands; do "$CORDON" session "$c" --help; done
} | sed -n 's/^ \{1,\}\(-[a-zA-Z], \)\{0,1\}--\([a-z0-9-]*\).*/\2/p' | sort -u)

n_run=$(printf '%s\n' "$run_opts" | grep -c .)
n_top=$(printf '%s\n' "$top_opts" | grep -c .)
n_cmd=$(printf '%s\n' "$commands" | grep -c .)
n_scmd=$(printf '%s\n' "$s_commands" | grep -c .)
n_sopt=$(printf '%s\n' "$s_opts" | grep -c .)
plan $((7 + n_run + n_top + n_cmd + n_scmd + n_sopt))

if [ -f "$page" ]; then
        ok "man page is staged at man/cordon.1"
else
        not_ok "man page is staged at man/cordon.1" "missing: $page (run-tap.sh must copy man/ into the stage)"
fi

if ! command -v groff >/dev/null 2>&1; then
        skip "groff is not installed (apt-get install groff-base)" "groff -man -z -ww is clean"
else
        lint=$(groff -man -z -ww "$page" 2>&1)
        status=$?
        if [ $status -eq 0 ] && [ -z "$lint" ]; then
                ok "groff -man -z -ww is clean"
        else
                not_ok "groff -man -z -ww is clean" "exit status $status" "$lint"
        fi
fi

if [ "$n_run" -ge 5 ]; then
        ok "cordon run --help lists its options ($n_run)"
else
        not_ok "cordon run --help lists its options ($n_run)" "$("$CORDON" run --help 2>&1)"
fi

# Each option needs an entry of its own: its name on the tag line after a .TP.
tags=$(section OPTIONS | awk 'tag { print; tag = 0 } /^\.TP/ { tag = 1 }')
check_option() { # check_option PROGRAM NAME
        # The whole name: followed by a font change, a non-name character or the line end.
        local re
        re="$(roff "$2" | sed 's/\\/\\\\/g')"'(\\f|[^a-zA-Z0-9\\]|$)'
        if printf '%s\n' "$tags" | grep -qE -- "$re"; then
                ok "$1 --$2 is documented in OPTIONS"
        else
                not_ok "$1 --$2 is documented in OPTIONS" "no .TP entry with '$(roff "$2")' in the OPTIONS section"
        fi
}
for o in $run_opts; do check_option "cordon run" "$o"; done
for o in $top_opts; do check_option cordon "$o"; done

cmds=$(section COMMANDS)
for c in $commands; do
        if printf '%s\n' "$cmds" | grep -qE -- "^\.B $c( |\$)|\\\\fB$c\\\\fR"; then
                ok "command '$c' is documented in COMMANDS"
        else
                not_ok "command '$c' is documented in COMMANDS" "no '\\fB$c\\fR' or '.B $c' in the COMMANDS section"
        fi
done

lib_page="$T_SRC/man/libcordon.3"
if ! command -v groff >/dev/null 2>&1; then
        skip "groff is not installed (apt-get install groff-base)" "libcordon.3: groff -man -z -ww is clean"
else
        lint=$(groff -man -z -ww "$lib_page" 2>&1)
        status=$?
        if [ $status -eq 0 ] && [ -z "$lint" ]; then
                ok "libcordon.3: groff -man -z -ww is clean"
        else
                not_ok "libcordon.3: groff -man -z -ww is clean" "exit status $status" "$lint"
        fi
fi

# Every function the public headers declare (or name in their comments) is named in the page,
# with no exception: a new public function needs its entry in libcordon.3. The whole name must
# appear (cordon_settings_get_item does not stand for cordon_settings_get), alone or after a
# font escape such as \fB.
missing=""
for h in "$T_SRC"/include/cordon/*.h; do
        for fn in $(grep -ohE '\bcordon_[a-z0-9_]+ *\(' "$h" | tr -d ' (' | sort -u); do
                grep -qE "(^|[^a-zA-Z0-9_]|\\\\f[BIRP])$fn([^a-zA-Z0-9_]|\$)" "$lib_page" ||
                        missing="$missing $fn"
        done
done
if [ -f "$lib_page" ] && [ -z "$missing" ]; then
        ok "libcordon.3 names every function of include/cordon/*.h"
else
        not_ok "libcordon.3 names every function of include/cordon/*.h" "missing:$missing"
fi

# cordon-session(1): lints clean; each command has an entry in COMMANDS (its name in bold on
# the tag line) and each long option one in OPTIONS, as for cordon.1.
if ! command -v groff >/dev/null 2>&1; then
        skip "groff is not installed (apt-get install groff-base)" "cordon-session.1: groff -man -z -ww is clean"
else
        lint=$(groff -man -z -ww "$s_page" 2>&1)
        status=$?
        if [ $status -eq 0 ] && [ -z "$lint" ]; then
                ok "cordon-session.1: groff -man -z -ww is clean"
        else
                not_ok "cordon-session.1: groff -man -z -ww is clean" "exit status $status" "$lint"
        fi
fi
if [ "$n_scmd" -ge 8 ] && [ "$n_sopt" -ge 15 ]; then
        ok "cordon session's help lists its commands ($n_scmd) and options ($n_sopt)"
else
        not_ok "cordon session's help lists its commands ($n_scmd) and options ($n_sopt)" \
                "$("$CORDON" session --help 2>&1)"
fi
s_cmds=$(section COMMANDS "$s_page" | awk 'tag { print; tag = 0 } /^\.TP/ { tag = 1 }')
for c in $s_commands; do
        if printf '%s\n' "$s_cmds" | grep -qE -- "^\\\\fB$c\\\\fR"; then
                ok "cordon-session.1: command '$c' has an entry in COMMANDS"
        else
                not_ok "cordon-session.1: command '$c' has an entry in COMMANDS" "no .TP tag '\\fB$c\\fR' in its COMMANDS section"
        fi
done
tags=$(section OPTIONS "$s_page" | awk 'tag { print; tag = 0 } /^\.TP/ { tag = 1 }')
for o in $s_opts; do check_option "cordon session" "$o"; done
