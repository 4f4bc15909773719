#!/usr/bin/env bash
# Attack: re-expose ~/.ssh with explicit binds: --rw $HOME (the project stays $HOME/proj),
# --rw/--ro of ~/.ssh itself, --rw of the parent of $HOME. Masks must win over every bind.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }

mkdir -p "$HOME/.ssh" "$HOME/notes"
chmod 700 "$HOME/.ssh"
echo "SSH-PRIVATE-KEY-rwh0me" > "$HOME/.ssh/id_rsa"
echo "note" > "$HOME/notes/a.txt"
key=$HOME/.ssh/id_rsa

plan 11
# The first run with a writable home creates the missing credential dirs so they can be covered.
first=$(inside --rw "$HOME" -- python3 -c "$TRY" 'open(p, "w").write("k")' "$HOME/.aws/credentials")
check "--rw \$HOME: missing ~/.aws is created on the host, with a warning" "dir:1" \
        "$([ -d "$HOME/.aws" ] && echo dir):$(printf '%s\n' "$first" | grep -c "created empty '$HOME/.aws'")"
check "--rw \$HOME: creating ~/.aws/credentials EROFS" "EROFS" "$(printf '%s\n' "$first" | tail -1)"
check "control: --rw \$HOME makes ~/notes/a.txt readable" "OK:note" \
        "$(inside --rw "$HOME" -- python3 -c "$TRY" 'open(p).read()' "$HOME/notes/a.txt")"
check "control: --rw \$HOME makes ~/notes writable" "OK:3" \
        "$(inside --rw "$HOME" -- python3 -c "$TRY" 'open(p, "w").write("new")' "$HOME/notes/b.txt")"
check "--rw \$HOME: ~/.ssh/id_rsa ENOENT" "ENOENT" \
        "$(inside --rw "$HOME" -- python3 -c "$TRY" 'open(p).read()' "$key")"
check "--rw \$HOME: ~/.ssh lists empty" "OK:[]" \
        "$(inside --rw "$HOME" -- python3 -c "$TRY" 'os.listdir(p)' "$HOME/.ssh")"
check "--rw \$HOME: creating ~/.ssh/authorized_keys EROFS" "EROFS" \
        "$(inside --rw "$HOME" -- python3 -c "$TRY" 'open(p, "w")' "$HOME/.ssh/authorized_keys")"
check "--rw ~/.ssh: ~/.ssh/id_rsa ENOENT" "ENOENT" \
        "$(inside --rw "$HOME/.ssh" -- python3 -c "$TRY" 'open(p).read()' "$key")"
check "--ro ~/.ssh: ~/.ssh/id_rsa ENOENT" "ENOENT" \
        "$(inside --ro "$HOME/.ssh" -- python3 -c "$TRY" 'open(p).read()' "$key")"
check "--rw \$HOME --home-access read: ~/.ssh/id_rsa ENOENT" "ENOENT" \
        "$(inside --rw "$HOME" --home-access read -- python3 -c "$TRY" 'open(p).read()' "$key")"
check "--rw of the parent of \$HOME: ~/.ssh/id_rsa ENOENT" "ENOENT" \
        "$(inside --rw "$T_TMP" -- python3 -c "$TRY" 'open(p).read()' "$key")"
