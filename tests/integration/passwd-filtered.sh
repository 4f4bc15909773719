#!/usr/bin/env bash
# Must still work: /etc/passwd and /etc/group inside list the system accounts (< 1000), nobody
# (65534) and the caller, nothing of the other users; id and whoami resolve the caller.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "no mount namespace: /etc/passwd is the host's (FILTER_PASSWD gap)"

me=$(id -u) my_name=$(id -un) my_gid=$(id -g)
FIND_OTHERS='BEGIN { FS = ":" } $3 >= 1000 && $3 != 65534 && $3 != me { print $1 }'

plan 9
run_sandboxed cat /etc/passwd
check "no passwd entry >= 1000 but the caller and 65534" "" \
        "$(printf '%s\n' "$out" | awk -v me="$me" "$FIND_OTHERS")"
check "the caller appears once" "1" \
        "$(printf '%s\n' "$out" | awk -F: -v me="$me" '$3 == me' | grep -c .)"
others=$(awk -v me="$me" "$FIND_OTHERS" /etc/passwd | tr '\n' ' ')
if [ -n "$others" ]; then
        ok "control: the host passwd has other users ($others)"
else
        ok "control: the host passwd has no other users to hide (nothing to filter here)"
fi
run_sandboxed cat /etc/group
check "no group entry >= 1000 but the caller's and 65534" "" \
        "$(printf '%s\n' "$out" | awk -v me="$my_gid" "$FIND_OTHERS")"
run_sandboxed sh -c 'id -un; whoami; id -u'
check "id and whoami inside" "$my_name
$my_name
$me" "$out"
run_sandboxed sh -c 'echo x >> /etc/passwd'
case "$rc:$out" in
[12]:*"Read-only file system"*) ok "/etc/passwd is read-only" ;;
*) not_ok "/etc/passwd is read-only" "rc=$rc" "output: $out" ;;
esac
check "nsswitch.conf points passwd at files" "passwd:         files" \
        "$(cd "$T_PROJECT" && "$CORDON" run --quiet -- grep '^passwd:' /etc/nsswitch.conf 2>&1)"
# Password hashes: the host file has entries (visible to root; others see its size), the
# sandbox's copy is empty, for root too.
check "control: the host /etc/shadow is not empty" "yes" "$([ -s /etc/shadow ] && echo yes || echo no)"
check "/etc/shadow inside is empty" "0" \
        "$(cd "$T_PROJECT" && "$CORDON" run --quiet -- sh -c 'wc -c < /etc/shadow' 2>&1)"
