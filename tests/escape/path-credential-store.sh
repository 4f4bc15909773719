#!/usr/bin/env bash
# Attack: the directories of PATH below the home are shown inside (lower-path.c); use that to
# reach a credential store: put ~/.ssh itself on PATH, a bin directory holding links to the key
# and to ~/.ssh, the home itself, a directory that holds ~/.cargo/credentials.toml, and an npm
# prefix whose etc/npmrc holds a token. Under both backends (--backend). Control: outside, every
# secret reads; inside, the programs beside them run, so the directories were shown.
. "$(dirname "$0")/../lib/tap.sh"

exe() { mkdir -p "$(dirname "$1")" && printf '%s\n' "$2" > "$1" && chmod 755 "$1"; }
mkdir -p "$HOME/.ssh" && chmod 700 "$HOME/.ssh"
echo "SSH-KEY-p4th" > "$HOME/.ssh/id_ed25519"
exe "$HOME/.ssh/sshtool" '#!/bin/sh
echo ssh-tool'
exe "$HOME/bin/tool" '#!/bin/sh
echo bin-tool'
ln -s ../.ssh/id_ed25519 "$HOME/bin/key"
ln -s ../.ssh "$HOME/bin/sshdir"
echo "notes-p4th" > "$HOME/notes.txt"
exe "$HOME/.cargo/ctool" '#!/bin/sh
echo cargo-tool'
echo 'token = "CARGO-p4th"' > "$HOME/.cargo/credentials.toml"
mkdir -p "$HOME/.npm-global/lib/node_modules" "$HOME/.npm-global/etc"
exe "$HOME/.npm-global/bin/ntool" '#!/bin/sh
echo npm-tool'
echo "//registry.invalid/:_authToken=NPM-p4th" > "$HOME/.npm-global/etc/npmrc"

base=/usr/local/bin:/usr/bin:/bin
# read BACKEND PATH FILE: what reading FILE gives inside (the /usr/bin python, whatever PATH).
read_in() {
        (cd "$T_PROJECT" && PATH="$2" "$CORDON" run --quiet --net isolated --backend "$1" -- \
                /usr/bin/python3 -c "$TRY" 'open(p).read()' "$3" 2>/dev/null)
}
run_in() { (cd "$T_PROJECT" && PATH="$2" "$CORDON" run --quiet --net isolated --backend "$1" -- "$3" 2>&1); }

plan 21
check "control: the key reads outside" "OK:SSH-KEY-p4th" \
        "$(python3 -c "$TRY" 'open(p).read()' "$HOME/bin/key")"
check "control: the npm token reads outside" "OK://registry.invalid/:_authToken=NPM-p4th" \
        "$(python3 -c "$TRY" 'open(p).read()' "$HOME/.npm-global/etc/npmrc")"
for b in ns landlock; do
        hidden=$([ $b = ns ] && echo ENOENT || echo EACCES)
        masked=$([ $b = ns ] && echo OK: || echo EACCES)
        check "$b: PATH=~/.ssh: the key stays out" "$hidden" \
                "$(read_in $b "$HOME/.ssh:$base" "$HOME/.ssh/id_ed25519")"
        out=$(run_in $b "$HOME/.ssh:$base" true)
        check "$b: PATH=~/.ssh: left out with a warning" "1" \
                "$(grep -c "PATH entry '$HOME/.ssh' lies in hidden path" <<<"$out")"
        check "$b: PATH=~/bin: its link to the key stays out" "$hidden" \
                "$(read_in $b "$HOME/bin:$base" "$HOME/bin/key")"
        check "$b: PATH=~/bin: its link to ~/.ssh stays out" "$hidden" \
                "$(read_in $b "$HOME/bin:$base" "$HOME/bin/sshdir/id_ed25519")"
        check "$b: control: PATH=~/bin: the program beside the links runs" "bin-tool" \
                "$(run_in $b "$HOME/bin:$base" tool | grep -v '^cordon: warning')"
        check "$b: PATH=~: the home stays out" "$hidden" \
                "$(read_in $b "$HOME:$base" "$HOME/notes.txt")"
        check "$b: PATH=~/.cargo: its credentials read empty or not at all" "$masked" \
                "$(read_in $b "$HOME/.cargo:$base" "$HOME/.cargo/credentials.toml")"
        check "$b: control: PATH=~/.cargo: the program beside them runs" "cargo-tool" \
                "$(run_in $b "$HOME/.cargo:$base" ctool)"
        check "$b: npm prefix on PATH: its etc/npmrc reads empty or not at all" "$masked" \
                "$(read_in $b "$HOME/.npm-global/bin:$base" "$HOME/.npm-global/etc/npmrc")"
done
check "control: PATH=~/.npm-global/bin: the prefix's program runs" "npm-tool" \
        "$(run_in ns "$HOME/.npm-global/bin:$base" ntool)"
