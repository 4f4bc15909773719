#!/usr/bin/env bash
# Must still work: --home-access read shows the host home (dotfiles and all) read-only, except the
# credential stores; the project below it stays writable.
. "$(dirname "$0")/../lib/tap.sh"

inside() {
        (cd "$T_PROJECT" && "$CORDON" run --quiet --home-access read -- python3 -c "$TRY" "$@" 2>&1) |
                drop_net_fallback
}
mkdir -p "$HOME/.config/app" "$HOME/.ssh" "$HOME/.aws" "$HOME/.gnupg"
echo "theme=dark" > "$HOME/.config/app/settings"
echo "set number" > "$HOME/.vimrc"
echo "SSH-KEY-h0mer34d" > "$HOME/.ssh/id_rsa"

plan 6
check "~/.config/app/settings (not a default dotfile) is visible" "OK:theme=dark" \
        "$(inside 'open(p).read()' "$HOME/.config/app/settings")"
check "~/.vimrc is visible" "OK:set number" "$(inside 'open(p).read()' "$HOME/.vimrc")"
# The landlock backend carves ~/.ssh out of the home grant entry by entry: no listing of ~.
check "the home listing shows the host entries" "$(on_backend OK:True EACCES)" \
        "$(inside '{".config", ".vimrc", "proj"} <= set(os.listdir(p))' "$HOME")"
check "writing ~/.vimrc is refused" "$(on_backend EROFS EACCES)" "$(inside 'open(p, "a")' "$HOME/.vimrc")"
check "~/.ssh/id_rsa stays out of reach" "$(on_backend ENOENT EACCES)" "$(inside 'open(p).read()' "$HOME/.ssh/id_rsa")"
check "the project is writable" "OK:2" "$(inside 'open(p, "w").write("ok")' "$T_PROJECT/x")"
