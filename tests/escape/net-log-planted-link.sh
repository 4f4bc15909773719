#!/usr/bin/env bash
# Attack: an earlier sandbox planted a directory symlink in its project (logs -> a directory the
# desktop runs files from, here a stand-in for ~/.config/autostart); the next run's
# NETWORK_LOG through that link would write cordon's log there. A log inside the sandbox's own
# writable bind can be forged from inside. Both are refused before anything runs (exit 125,
# NETWORK_LOG named), and nothing is created behind the link.
# Control: a log at a path with no link, outside the writable binds, is written.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "proxied mode needs the ns backend"

plan 7
netlog() { (cd "$T_PROJECT" && timeout 20 "$CORDON" run --quiet --net proxied --net-log "$1" -- \
        true 2>&1); }
mkdir -p "$T_TMP/logs" "$T_TMP/autostart"
out=$(netlog "$T_TMP/logs/net.jsonl"); rc=$?
check "control: a log outside the writable binds is written" "0:yes" \
        "$rc:$([ -f "$T_TMP/logs/net.jsonl" ] && echo yes)"

ln -s "$T_TMP/autostart" "$T_PROJECT/logs"
out=$(netlog "$T_PROJECT/logs/net.jsonl"); rc=$?
check "a log through a link planted in the project: refused (125)" "125" "$rc"
case $out in
*NETWORK_LOG*"goes through symlink '$T_PROJECT/logs'"*) ok "the refusal names NETWORK_LOG and the link" ;;
*) not_ok "the refusal names NETWORK_LOG and the link" "$out" ;;
esac
check "... and nothing was written behind the link" "" "$(ls -A "$T_TMP/autostart")"

# Another run's project: strictly below an allowed project parent, not this run's bind.
mkdir -p "$HOME/other"
ln -s "$T_TMP/autostart" "$HOME/other/logs"
out=$(netlog "$HOME/other/logs/net.jsonl"); rc=$?
check "a log through a link in another run's possible project: refused (125)" "125:" \
        "$rc:$(ls -A "$T_TMP/autostart")"

out=$(netlog "$T_PROJECT/net.jsonl"); rc=$?
check "a log inside the writable project (forgeable): refused (125)" "125:absent" \
        "$rc:$([ -e "$T_PROJECT/net.jsonl" ] && echo present || echo absent)"
case $out in
*"NETWORK_LOG '$T_PROJECT/net.jsonl' lies in '$T_PROJECT'"*) ok "the refusal names the writable bind" ;;
*) not_ok "the refusal names the writable bind" "$out" ;;
esac
