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
# A writable home is carved around the missing credential stores: nothing is made on the host,
# and the sandbox cannot make them either.
first=$(inside --rw "$HOME" -- python3 -c "$TRY" 'os.mkdir(p)' "$HOME/.aws")
check "--rw \$HOME: missing ~/.aws is not created on the host, and no line says so" "absent:0" \
        "$([ -e "$HOME/.aws" ] && echo present || echo absent):$(printf '%s\n' "$first" | grep -c "created empty")"
check "--rw \$HOME: making ~/.aws inside: EROFS" "EROFS" "$(printf '%s\n' "$first" | tail -1)"
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
# (Above the home nothing is carved: the missing stores are made empty first, with a line each.)
check "--rw of the parent of \$HOME: ~/.ssh/id_rsa ENOENT" "ENOENT" \
        "$(inside --rw "$T_TMP" -- python3 -c "$TRY" 'open(p).read()' "$key" | tail -n 1)"
