#!/usr/bin/env bash
# tap: split: root (as the test user it skips itself: see run-tap.sh's T_TAP_SPLIT)
# A sandbox run by root makes root's files, which is what an admin baseline must be. With the
# project at /app (a container's usual working directory), it could create agent-sandbox's
# admin baseline /app/lib/agent-sandbox/sandbox.conf, which every later start on the machine
# obeys (and which may name a program cordon runs on the host). cordon makes the missing
# directories first (announced) and keeps them read-only: the create fails with EROFS (ns) or
# EACCES (landlock). Control: the same sandbox writes into the project elsewhere.
# As root only (an unprivileged sandbox's files are not root's, so the loader refuses them);
# /app is made here and removed on exit, and the test does not run when /app exists.
# tap: exclusive (it makes /app, where every start looks for an admin baseline)
# shellcheck disable=SC1091,SC2016 # resolved at run time; the quoted scripts expand in the sandbox
. "$(dirname "$0")/../lib/tap.sh"

if [ "$(id -u)" != 0 ]; then
        echo "1..0 # SKIP only root's files can be an admin baseline"
        exit 0
fi
plan 6
if [ -e /app ]; then
        for i in 1 2 3 4 5 6; do skip "/app exists on this host" "admin baseline plant $i"; done
        exit 0
fi
trap 'rm -rf /app' EXIT
trap 'exit 130' INT TERM HUP

for backend in ns landlock; do
        rm -rf /app && mkdir -m 0755 /app && mkdir /app/src
        out=$(cd /app && "$CORDON" run --backend "$backend" --net isolated \
                --set ALLOWED_PROJECT_PARENTS=/ -- python3 -c "$TRY" \
                'os.makedirs("/app/lib/agent-sandbox", exist_ok=True) or open(p, "w").write("NETWORK_FILTER_HELPER=/bin/sh\n")' \
                /app/lib/agent-sandbox/sandbox.conf 2>"$T_TMP/err")
        check "$backend: root's sandbox cannot create the admin baseline in its project /app" \
                "$([ "$backend" = ns ] && echo EROFS || echo EACCES)" "$out"
        if [ -e /app/lib/agent-sandbox/sandbox.conf ]; then
                not_ok "$backend: no admin file on the host afterwards" "$(cat /app/lib/agent-sandbox/sandbox.conf)"
        else
                ok "$backend: no admin file on the host afterwards"
        fi
        out=$(cd /app && "$CORDON" run --quiet --backend "$backend" --net isolated \
                --set ALLOWED_PROJECT_PARENTS=/ -- sh -c 'echo x >/app/src/file && cat /app/src/file' 2>&1)
        check "$backend: control: the same sandbox writes elsewhere in its project" "x" "$out"
done
