#!/usr/bin/env bash
# tap: split: root (as the test user it skips itself: see run-tap.sh's T_TAP_SPLIT)
# Race: another user (a second sandbox, its session daemon, Python's multiprocessing) listens on
# a unix socket in a private (0700) directory under the shared /tmp while this sandbox starts
# with the host's /tmp bound (PRIVATE_TMP=false). Every host socket a bind shows is masked, and
# the directories on the way pinned; this sandbox's first process cannot open that directory
# (its owner is not mapped in the user namespace), and the start failed: "failed to open ...:
# Permission denied", status 125 (seen twice in CI, tests/escape/config-admin.sh).
# Expected: the start succeeds, the socket out of reach answers EACCES inside, and one the
# sandbox can reach (the same user's socket in a 0755 directory) is still masked: ECONNREFUSED.
# Control: both answer outside. As root only: the private directory must be another user's.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "the landlock backend masks no socket: it refuses socket() itself"
if [ "$(id -u)" != 0 ] || ! id "${T_USER:-cordon-test}" >/dev/null 2>&1; then
        echo "1..0 # SKIP needs another user's private directory under /tmp: the root run makes one"
        exit 0
fi
u=${T_USER:-cordon-test}
dirs=$(mktemp -d /tmp/cordon-sock.XXXXXX)
chmod 755 "$dirs"
mkdir -m 700 "$dirs/private" && mkdir -m 755 "$dirs/open"
chown -R "$u:" "$dirs"
setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups python3 -c "$UNIX_LISTEN" "$dirs/private/s" "$dirs/private/ready" &
l1=$!
setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups python3 -c "$UNIX_LISTEN" "$dirs/open/s" "$dirs/open/ready" &
l2=$!
trap 'kill "$l1" "$l2" 2>/dev/null; wait "$l1" "$l2" 2>/dev/null; rm -rf "$dirs"' EXIT
for _ in $(seq 100); do [ -e "$dirs/private/ready" ] && [ -e "$dirs/open/ready" ] && break; sleep 0.05; done

cfg=$T_TMP/shared-tmp.conf
echo 'PRIVATE_TMP=false' >"$cfg"
plan 5
check "control: the private socket answers outside" "OK:HOST-SERVICE" \
        "$(python3 -c "$UNIX_CONNECT" "$dirs/private/s" 2>&1)"
check "control: the open socket answers outside" "OK:HOST-SERVICE" \
        "$(python3 -c "$UNIX_CONNECT" "$dirs/open/s" 2>&1)"
out=$(cd "$T_PROJECT" && CORDON_CONF=$cfg "$CORDON" run --quiet --net isolated -- \
        sh -c 'python3 -c "$1" "$2"; python3 -c "$1" "$3"' sh "$UNIX_CONNECT" "$dirs/private/s" \
        "$dirs/open/s" 2>"$T_TMP/err")
rc=$?
if [ "$rc" = 0 ]; then
        ok "PRIVATE_TMP=false with another user's private socket under /tmp: the sandbox starts"
else
        not_ok "PRIVATE_TMP=false with another user's private socket under /tmp: the sandbox starts" \
                "status $rc" "$(cat "$T_TMP/err")"
fi
check "... that socket is out of reach inside: EACCES" "EACCES" "$(echo "$out" | sed -n 1p)"
check "... a reachable one is still masked: ECONNREFUSED" "ECONNREFUSED" "$(echo "$out" | sed -n 2p)"
