#!/bin/bash
# A stand-in for pasta (NETWORK_FILTER_HELPER) for tests/integration/net-early-start.sh: runs the
# real pasta with cordon's arguments, and reports pasta's readiness on cordon's -P file only three
# seconds after pasta wrote its own. It reports its own pid, the one cordon spawned; the real pasta
# dies with it (setpriv --pdeathsig), as cordon's SIGKILL reaches only this script.
set -u
args=() ready=
while [ $# -gt 0 ]; do
        if [ "$1" = -P ] && [ $# -ge 2 ]; then
                ready=$2
                shift 2
                continue
        fi
        args+=("$1")
        shift
done
[ -n "$ready" ] || { echo "slow-pasta: no -P" >&2; exit 2; }
own=$(mktemp /tmp/slow-pasta.XXXXXX) || exit 2
trap 'rm -f "$own"' EXIT
setpriv --pdeathsig KILL -- /usr/bin/pasta "${args[@]}" -P "$own" &
pasta=$!
for _ in $(seq 1000); do
        [ -s "$own" ] && break
        kill -0 "$pasta" 2>/dev/null || exit 1
        sleep 0.01
done
sleep 3
echo $$ >"$ready"
wait "$pasta"
