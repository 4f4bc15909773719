#!/usr/bin/env bash
# What an earlier run left behind: a run whose supervisor was SIGKILLed leaves its agents' run
# directory (the ns backend has nobody outside left to remove it). The next start removes such a
# directory when it is the user's and nobody holds its lock; a run in progress holds it, and a
# directory still being made (NAME.new) is young. Never through a link.
# Controls: the locked directory and the young one stay; a link named like a run directory is
# not followed (what it points at stays whole).
. "$(dirname "$0")/../lib/tap.sh"

plan 6
mkdir -p "$HOME/.codex" # codex counts as installed: its run directory is made
home=$(cd "$T_PROJECT" && "$CORDON" run --quiet -- sh -c 'echo "$CODEX_HOME"' 2>&1 | drop_net_fallback)
case $home in
*/cordon-agents-*/codex) ;;
*)
        for i in 1 2 3 4 5 6; do not_ok "the agents' run directory is made" "CODEX_HOME: $home"; done
        exit 0 ;;
esac
base=${home%/cordon-agents-*}
tag=$$$RANDOM
stale=$base/cordon-agents-stale$tag locked=$base/cordon-agents-locked$tag
young=$base/cordon-agents-young$tag.new link=$base/cordon-agents-link$tag
target=$T_TMP/target
mkdir -m 700 "$stale" "$locked" "$young" "$target"
ln -s "$target" "$stale/link-inside"
echo keep >"$target/file"
ln -s "$target" "$link"
# The lock a run in progress holds, taken by this shell itself on a descriptor of its own (a
# background holder would keep the test's output open for as long as it sleeps).
exec 9<"$locked"
flock -x 9

(cd "$T_PROJECT" && "$CORDON" run --quiet -- true)
check "a stale run directory (nobody holds its lock) is removed by the next start" "gone" \
        "$([ -e "$stale" ] && echo there || echo gone)"
check "control: one whose lock is held (a run in progress) stays" "there" \
        "$([ -d "$locked" ] && echo there || echo gone)"
check "control: one being made (NAME.new, young) stays" "there" \
        "$([ -d "$young" ] && echo there || echo gone)"
check "a link named like a run directory is not followed: its target is whole" "keep" \
        "$(cat "$target/file" 2>&1)"
check "nor through a link inside a stale one" "keep" "$(ls "$target" >/dev/null && cat "$target/file")"
check "the run's own directory is gone after it" "" \
        "$(find "$base" -maxdepth 1 -name 'cordon-agents-*' -user "$(id -u)" -newer "$target" \
                ! -name "*$tag*" 2>/dev/null)"
exec 9<&-
rm -rf "$locked" "$young" "$link" "$stale"
