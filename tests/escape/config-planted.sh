#!/usr/bin/env bash
# A sandbox that can write where cordon reads its configuration (a project of ~/.config,
# HOME_ACCESS=write) must not leave a conf.d file, a profile or agent-sandbox's sandbox.conf
# behind for the next start: those are bash run by the next cordon, choosing its confinement.
# ~/.config/cordon and ~/.config/agent-sandbox are read-only inside wherever the sandbox could
# otherwise write them. Controls: the rest of the same writable directory stays writable. (A
# writable ~/.config that lacks a credential store or a HOME_READONLY entry, such as ~/.config/gh,
# is carved: ~/.config itself read-only, its entries read-write; see home-write-plant.sh.)
. "$(dirname "$0")/../lib/tap.sh"
ns_only "read-only binds inside a writable directory need a mount namespace"

plan 11
mkdir -p "$HOME/.config/cordon/conf.d" "$HOME/.config/other-tool"
cd "$HOME/.config" || exit 1
try() { "$CORDON" run --quiet --net isolated -- python3 -c "$TRY" "$1" "$2" 2>/dev/null; }
check "project ~/.config: planting conf.d/evil.conf fails" EROFS \
        "$(try 'open(p, "w").write("HOME_ACCESS=write\n")' "$HOME/.config/cordon/conf.d/evil.conf")"
check "... and nothing reached the host" absent \
        "$([ -e "$HOME/.config/cordon/conf.d/evil.conf" ] && echo present || echo absent)"
check "planting agent-sandbox's sandbox.conf fails too (it cannot be created)" ENOENT \
        "$(try 'open(p, "w").write("HOME_ACCESS=write\n")' "$HOME/.config/agent-sandbox/sandbox.conf")"
check "a profile folder cannot be added" EROFS \
        "$(try 'os.makedirs(p)' "$HOME/.config/cordon/profiles/claude")"
check "control: the rest of ~/.config is writable" "OK:None" \
        "$(try 'open(p, "w").close()' "$HOME/.config/other-tool/x.conf")"
cd "$T_PROJECT" || exit 1
out=$("$CORDON" run --quiet --net isolated --home-access write -- python3 -c "$TRY" \
        'open(p, "w").write("HOME_ACCESS=write\n")' "$HOME/.config/cordon/conf.d/evil.conf" 2>/dev/null)
check "HOME_ACCESS=write: planting a conf.d file fails" EROFS "$out"
out=$("$CORDON" run --quiet --net isolated --home-access write -- python3 -c "$TRY" \
        'open(p, "w").close()' "$HOME/.config/other-tool/y.conf" 2>/dev/null)
check "control: HOME_ACCESS=write writes elsewhere in ~/.config" "OK:None" "$out"

# ~/.config/cordon as a link (a dotfiles repository) into the project: the target is kept
# read-only; a link the sandbox could replace, or one that leads nowhere, refuses to start.
rm -rf "$HOME/.config/cordon"
mkdir -p "$T_PROJECT/dotfiles/cordon/conf.d"
ln -s "$T_PROJECT/dotfiles/cordon" "$HOME/.config/cordon"
out=$("$CORDON" run --quiet --net isolated -- python3 -c "$TRY" \
        'open(p, "w").write("HOME_ACCESS=write\n")' "$T_PROJECT/dotfiles/cordon/conf.d/evil.conf" 2>/dev/null)
check "a linked ~/.config/cordon: its target in the project is read-only inside" EROFS "$out"
out=$("$CORDON" run --quiet --net isolated -- python3 -c "$TRY" \
        'open(p, "w").close()' "$T_PROJECT/dotfiles/other" 2>/dev/null)
check "control: the rest of the project is writable" "OK:None" "$out"
out=$("$CORDON" run --quiet --net isolated --home-access write -- python3 -c "$TRY" \
        'os.unlink(p)' "$HOME/.config/cordon" 2>/dev/null)
check "HOME_ACCESS=write with a linked ~/.config/cordon: ~/.config is read-only, so the link stays" \
        EROFS "$out"
rm "$HOME/.config/cordon" && ln -s "$T_PROJECT/missing-cfg" "$HOME/.config/cordon"
"$CORDON" run --quiet --net isolated -- true >/dev/null 2>&1
check "a ~/.config/cordon link that leads nowhere refuses to start" 125 "$?"
rm "$HOME/.config/cordon"
