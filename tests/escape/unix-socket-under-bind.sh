#!/usr/bin/env bash
# Attack: connect() to a host service's unix socket that a read-only bind shows (a Docker-style
# socket under $HOME with --home-access read): a read-only mount does not stop connect().
# Expected: the socket is masked by an empty file, so connect() fails with ECONNREFUSED.
# Control: below a path the user named (--ro of its directory, or the project) it is left
# reachable, with a warning naming it.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "the landlock backend refuses socket() itself (seccomp-filter tests)"

mkdir -p "$HOME/.local/run"
sock=$HOME/.local/run/svc.sock
psock=$T_PROJECT/svc.sock
python3 -c "$UNIX_LISTEN" "$sock" "$T_TMP/ready1" &
l1=$!
python3 -c "$UNIX_LISTEN" "$psock" "$T_TMP/ready2" &
l2=$!
trap 'kill "$l1" "$l2" 2>/dev/null' EXIT
for _ in $(seq 100); do [ -e "$T_TMP/ready1" ] && [ -e "$T_TMP/ready2" ] && break; sleep 0.05; done

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }
# Stdout only: the project's socket is named in a warning on every run.
result() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>/dev/null); }

plan 6
check "control: the socket answers outside" "OK:HOST-SERVICE" "$(python3 -c "$UNIX_CONNECT" "$sock" 2>&1)"
check "--home-access read: connecting to ~/.local/run/svc.sock: ECONNREFUSED" "ECONNREFUSED" \
        "$(result --home-access read -- python3 -c "$UNIX_CONNECT" "$sock")"
check "--home-access write: the same: ECONNREFUSED" "ECONNREFUSED" \
        "$(result --home-access write -- python3 -c "$UNIX_CONNECT" "$sock")"
out=$(inside --home-access read --ro "$HOME/.local/run" -- python3 -c "$UNIX_CONNECT" "$sock")
check "control: below an explicit --ro it is reachable" "OK:HOST-SERVICE" "${out##*$'\n'}"
case $out in
*"warning: unix socket '$sock' is reachable inside"*) ok "... and a warning names it" ;;
*) not_ok "... and a warning names it" "output: $out" ;;
esac
out=$(inside -- python3 -c "$UNIX_CONNECT" "$psock")
check "control: in the project (named by the user) it is reachable, with a warning" \
        "cordon: warning: unix socket '$psock' is reachable inside|OK:HOST-SERVICE" \
        "$(echo "$out" | paste -sd'|')"
