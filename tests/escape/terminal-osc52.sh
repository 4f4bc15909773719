#!/usr/bin/env bash
# Attack: write and read the user's clipboard with OSC 52 from inside: a write replaces what the
# user pastes next, a read makes the terminal answer with the clipboard's contents. cordon drops
# both on the way to the terminal. Control: with --terminal-passthrough the same bytes reach it.
. "$(dirname "$0")/../lib/tap.sh"

plan 2
FT=$(cd "$(dirname "$0")/../lib" && pwd)/fake-terminal.py
cd "$T_PROJECT" || exit 1
osc52="printf '\\033]52;c;cHduZWQ=\\007\\033]52;c;?\\007done'"
r=$(python3 "$FT" "$CORDON" run -q -- sh -c "$osc52")
check "OSC 52 write and read from inside do not reach the terminal" "done:no" \
        "$(grep -q 'done' <<<"$r" && echo done):$(grep -q '52;' <<<"$r" && echo yes || echo no)"
r=$(python3 "$FT" "$CORDON" run -q --terminal-passthrough -- sh -c "$osc52")
check "control: with --terminal-passthrough they do" "done:yes" \
        "$(grep -q 'done' <<<"$r" && echo done):$(grep -q '52;c;cHduZWQ=' <<<"$r" && echo yes || echo no)"
