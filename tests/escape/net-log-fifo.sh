#!/usr/bin/env bash
# Attack: an earlier sandbox leaves a FIFO (or any non-file) where the next run's --net-log
# points (in a directory the user writes); opening it for writing would block the start forever. The log
# is refused unless it is a regular file. Control: a regular file gets the log.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "proxied mode needs the ns backend"

plan 4
log="$T_TMP/net.jsonl"
out=$(cd "$T_PROJECT" && timeout 20 "$CORDON" run --quiet --net proxied --net-log "$log" -- \
        true 2>&1); rc=$?
check "control: --net-log to a regular file: the run succeeds" "0" "$rc"
check "control: the log file exists and is a regular file" "yes" "$([ -f "$log" ] && echo yes)"
rm -f "$log"
mkfifo "$log"
out=$(cd "$T_PROJECT" && timeout 20 "$CORDON" run --quiet --net proxied --net-log "$log" -- \
        true 2>&1); rc=$?
check "a FIFO at the log's path: refused at once (exit 125, not a hang)" "125" "$rc"
case $out in
*NETWORK_LOG*) ok "the refusal names NETWORK_LOG" ;;
*) not_ok "the refusal names NETWORK_LOG" "$out" ;;
esac
