#!/usr/bin/env bash
# Must still work: --home-access restricted gives a read-only empty home (EROFS for ~/newfile)
# that still shows the read-only dotfiles and keeps the agent directories writable.
. "$(dirname "$0")/../lib/tap.sh"

inside() {
        (cd "$T_PROJECT" &&
                "$CORDON" run --quiet --home-access restricted -- python3 -c "$TRY" "$@" 2>&1) |
                drop_net_fallback
}
echo "export EDITOR=vi" > "$HOME/.profile"

plan 6
check "creating ~/newfile is refused" "$(on_backend EROFS EACCES)" "$(inside 'open(p, "w")' "$HOME/newfile")"
check "creating ~/newdir is refused" "$(on_backend EROFS EACCES)" "$(inside 'os.mkdir(p)' "$HOME/newdir")"
check "~/.profile is visible" "OK:export EDITOR=vi" "$(inside 'open(p).read()' "$HOME/.profile")"
mkdir -p "$HOME/.claude" # claude is installed: its state is made and bound
check "claude's state is writable" "OK:2" "$(inside 'open(p, "w").write("ok")' "$HOME/.claude/todos/x")"
check "the project is writable" "OK:2" "$(inside 'open(p, "w").write("ok")' "$T_PROJECT/x")"
out=$(cd "$T_PROJECT" && "$CORDON" run --home-access restricted -- true 2>&1)
case $out in
*"home=restricted"*) ok "the banner names home=restricted" ;;
*) not_ok "the banner names home=restricted" "stderr: $out" ;;
esac
