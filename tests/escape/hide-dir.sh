#!/usr/bin/env bash
# Attack: list, read and write into a directory hidden with --hide (in the project, and in a
# home bound with --home-access read). Control: without --hide its files are visible inside.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }
hidden() { inside --hide "$T_PROJECT/private" -- python3 -c "$TRY" "$@"; }

mkdir -p "$T_PROJECT/private/sub" "$HOME/.config/secrets"
echo "h1dd3n" > "$T_PROJECT/private/sub/data"
echo "h1dd3n-home" > "$HOME/.config/secrets/token"

plan 8
check "control: without --hide the directory lists inside" "OK:['sub']" \
        "$(inside -- python3 -c "$TRY" 'os.listdir(p)' private)"
check "hidden directory lists empty" "OK:[]" "$(hidden 'os.listdir(p)' private)"
check "file below it: ENOENT" "ENOENT" "$(hidden 'open(p).read()' private/sub/data)"
check "creating a file in it: EROFS" "EROFS" "$(hidden 'open(p, "w")' private/new)"
check "removing it: EBUSY" "EBUSY" "$(hidden 'os.rmdir(p)' private)"
check "renaming it away: EBUSY" "EBUSY" "$(hidden 'os.rename(p, "moved")' private)"
check "--hide in a home bound with --home-access read: ENOENT" "ENOENT" \
        "$(inside --home-access read --hide "$HOME/.config/secrets" -- \
                python3 -c "$TRY" 'open(p).read()' "$HOME/.config/secrets/token")"
check "host directory is untouched" "h1dd3n" "$(cat "$T_PROJECT/private/sub/data")"
