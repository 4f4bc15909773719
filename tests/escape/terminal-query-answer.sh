#!/usr/bin/env bash
# Attack: end with queries whose answers the terminal sends late (a slow link): they arrive after
# the command ended, and the user's shell reads them as typed input. cordon drops DA2 and the
# status report; the cursor position and DA1 queries pass, and it waits for their answers and
# discards them. Control: the same queries from a command run on the terminal directly leave the
# answers queued for the next reader.
. "$(dirname "$0")/../lib/tap.sh"

plan 2
FT=$(cd "$(dirname "$0")/../lib" && pwd)/fake-terminal.py
cd "$T_PROJECT" || exit 1
q='\033[>c\033[5n\033[6n\033[c'
r=$(python3 "$FT" --delay 0.5 "$CORDON" run -q -- printf "$q")
check "no answer to a query sent just before the end is left for the shell" "QUEUED:" \
        "$(grep -o 'QUEUED:.*' <<<"$r")"
r=$(python3 "$FT" --delay 0.5 printf "$q")
check "control: run on the terminal directly, the answers are left queued" \
        'QUEUED:\x1b[>0;10;1c\x1b[0n\x1b[5;1R\x1b[?1;2c' "$(grep -o 'QUEUED:.*' <<<"$r")"
