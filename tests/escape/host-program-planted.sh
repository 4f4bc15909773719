#!/usr/bin/env bash
# A file a sandbox could have written must never choose a program cordon runs on the host: a
# planted ~/.config/cordon/conf.d/x.conf with NETWORK_FILTER_HELPER=<a script in the project>
# made the next `cordon run --net filtered` execute that script, unconfined, as pasta (issue
# 22). A user's file may not set such a variable (refused naming FILE:LINE and the variable),
# and a helper the command line names must be root's in directories only root can write (a
# file a sandbox writes is the user's). The script writes a marker on the host if it ever runs.
# Control: the system's pasta, named on the command line through its root-owned link, starts.
. "$(dirname "$0")/../lib/tap.sh"

plan 7
cd "$T_PROJECT" || exit 1
evil=$T_PROJECT/evil
marker=$T_TMP/evil-ran
printf '#!/bin/sh\necho ran >%s\nexit 1\n' "$marker" >"$evil"
chmod 755 "$evil"
ran() { if [ -e "$marker" ]; then echo "ran on the host"; else echo "never ran"; fi; }

mkdir -p "$HOME/.config/cordon/conf.d"
printf '# planted by a sandbox\nNETWORK_FILTER_HELPER=%s\n' "$evil" >"$HOME/.config/cordon/conf.d/x.conf"
out=$("$CORDON" run --quiet --net filtered -- true 2>&1); rc=$?
check "a planted conf.d NETWORK_FILTER_HELPER refuses the start" 125 "$rc"
case $out in
*"conf.d/x.conf:2: NETWORK_FILTER_HELPER names a program cordon runs outside the sandbox"*)
        ok "... naming the file, the line and the variable" ;;
*) not_ok "... naming the file, the line and the variable" "$out" ;;
esac
check "... and the planted helper never ran on the host" "never ran" "$(ran)"
rm -f "$HOME/.config/cordon/conf.d/x.conf"

# The command line may name a helper, but not one the user owns (as root: one given to nobody,
# since root's own files in the project are root's).
[ "$(id -u)" = 0 ] && chown nobody "$evil"
out=$("$CORDON" run --quiet --net filtered --set "NETWORK_FILTER_HELPER=$evil" -- true 2>&1); rc=$?
check "a helper the user owns, from the command line, refuses the start" 125 "$rc"
case $out in
*"NETWORK_FILTER_HELPER: program '$evil'"*"not root"*) ok "... naming the variable and the path" ;;
*) not_ok "... naming the variable and the path" "$out" ;;
esac
check "... and it never ran on the host" "never ran" "$(ran)"

if [ ! -x /usr/bin/pasta ]; then
        skip "no pasta at /usr/bin/pasta" "control: the system's pasta from the command line starts"
else
        out=$("$CORDON" run --quiet --net filtered --set NETWORK_FILTER_HELPER=/usr/bin/pasta \
                -- echo started 2>&1); rc=$?
        if [ $rc = 0 ] && [ "$(printf '%s\n' "$out" | tail -1)" = started ]; then
                ok "control: the system's pasta from the command line starts"
        elif [[ $out == *"cannot be delivered"* ]] || [[ $out == *"/dev/net/tun"* ]]; then
                skip "the filtered mode cannot run here: ${out##*: }" \
                        "control: the system's pasta from the command line starts"
        else
                not_ok "control: the system's pasta from the command line starts" "rc=$rc" "$out"
        fi
fi
