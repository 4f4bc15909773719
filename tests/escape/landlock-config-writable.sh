#!/usr/bin/env bash
# Attack (landlock backend): with ~/.config writable (--rw ~/.config, --home-access write), plant
# cordon's own configuration (~/.config/cordon/conf.d/x.conf, or a fresh ~/.config/agent-sandbox),
# which the next start runs as bash and which chooses its confinement. The ns backend binds these
# directories read-only; the landlock backend had no such rule. Expected: EACCES (a missing
# agent-sandbox directory cannot be created: ~/.config, which lacks credential stores such as
# ~/.config/gh, is carved). Control: another entry of ~/.config stays writable, and with
# --profile unrestricted (no Landlock) the plant succeeds.
. "$(dirname "$0")/../lib/tap.sh"

mkdir -p "$HOME/.config/cordon/conf.d" "$HOME/.config/tool"
echo "setting=1" > "$HOME/.config/tool/settings"
rm -rf "$HOME/.config/agent-sandbox"

run() { (cd "$T_PROJECT" && "$CORDON" run --quiet --backend landlock "$@" 2>/dev/null); }
plant='open(p, "w").write("NETWORK_FILTER_MODE=open\n")'

plan 9
for how in "--rw $HOME/.config" "--home-access write"; do
        # shellcheck disable=SC2086 # two words on purpose
        check "$how: creating conf.d/x.conf: EACCES" "EACCES" \
                "$(run $how -- python3 -c "$TRY" "$plant" "$HOME/.config/cordon/conf.d/x.conf")"
        # shellcheck disable=SC2086
        check "$how: creating ~/.config/agent-sandbox: EACCES" "EACCES" \
                "$(run $how -- python3 -c "$TRY" 'os.makedirs(p)' "$HOME/.config/agent-sandbox")"
        # shellcheck disable=SC2086
        check "$how: control: ~/.config/tool/settings stays writable" "OK:2" \
                "$(run $how -- python3 -c "$TRY" 'open(p, "a").write("x\n")' "$HOME/.config/tool/settings")"
done
check "nothing was planted on the host" "absent" \
        "$([ -e "$HOME/.config/cordon/conf.d/x.conf" ] && echo present || echo absent)"
check "no agent-sandbox directory appeared" "absent" \
        "$([ -e "$HOME/.config/agent-sandbox" ] && echo present || echo absent)"
check "control: with --profile unrestricted the plant succeeds" "OK:25" \
        "$(run --profile unrestricted --rw "$HOME/.config" -- \
                python3 -c "$TRY" "$plant" "$HOME/.config/cordon/conf.d/x.conf")"
rm -f "$HOME/.config/cordon/conf.d/x.conf"
