#!/usr/bin/env bash
# Attack: an earlier sandbox planted a directory symlink in its project (out -> a directory the
# desktop runs files from, a stand-in for ~/.config/autostart); `--receipt proj/out/r.json`
# resolves to a directory outside the writable binds and would write the receipt there. A path
# through a link in a directory a sandbox can write is refused before anything runs (125).
# Control: the same receipt in a directory reached without links is written.
. "$(dirname "$0")/../lib/tap.sh"

plan 4
receipt() { (cd "$T_PROJECT" && "$CORDON" run --quiet --receipt "$1" -- touch "$T_PROJECT/ran" 2>&1); }
mkdir -p "$T_TMP/autostart"
out=$(receipt "$T_TMP/autostart/r.json"); rc=$?
check "control: a receipt at a path without links is written" "0:yes" \
        "$rc:$([ -f "$T_TMP/autostart/r.json" ] && echo yes)"
rm -f "$T_TMP/autostart/r.json" "$T_PROJECT/ran"

ln -s "$T_TMP/autostart" "$T_PROJECT/out"
out=$(receipt "$T_PROJECT/out/r.json"); rc=$?
check "a receipt through a link planted in the project: refused (125) before anything ran" \
        "125:absent" "$rc:$([ -e "$T_PROJECT/ran" ] && echo ran || echo absent)"
check "... the message names the link" \
        "cordon: --receipt '$T_PROJECT/out/r.json' goes through symlink '$T_PROJECT/out' -> '$T_TMP/autostart' in a directory a sandbox can write; name a path without it" \
        "$out"
check "... and nothing was written behind the link" "" "$(ls -A "$T_TMP/autostart")"
