#!/usr/bin/env bash
# Attack (landlock backend: the command sees the host's /etc): read the password hashes in
# /etc/shadow and /etc/gshadow, which root (and the shadow group) can read and /etc is granted
# read-only. Expected: EACCES, with the rest of /etc readable and listable. Control: the same read
# outside the sandbox, which works for root; for a user who cannot read them anyway, their file
# modes are what denies it, outside and in.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet --backend landlock "$@" 2>&1) | drop_net_fallback; }
read_file='open(p).read(0)'

plan 6
for f in /etc/shadow /etc/gshadow; do
        if [ ! -e "$f" ]; then
                skip "this host has no $f" "$f: EACCES inside"
                skip "this host has no $f" "control: $f outside"
                continue
        fi
        outside=$(python3 -c "$TRY" "$read_file" "$f")
        check "$f: EACCES inside" "EACCES" "$(inside -- python3 -c "$TRY" "$read_file" "$f")"
        if [ "$(id -u)" -eq 0 ]; then
                check "control: root reads $f outside" "OK:" "$outside"
        else
                check "control: $f is denied by its mode outside too" "EACCES" "$outside"
        fi
done
check "/etc/passwd stays readable" "OK:" "$(inside -- python3 -c "$TRY" "$read_file" /etc/passwd)"
check "/etc stays listable" "yes" \
        "$(inside -- python3 -c "$TRY" '"passwd" in os.listdir(p)' /etc | sed 's/OK:True/yes/')"
