#!/bin/bash
# A stand-in for pasta (NETWORK_FILTER_HELPER) for tests/integration/net-early-start.sh: runs the
# real pasta with cordon's arguments, never reports it ready on cordon's -P file, and one second
# after the real pasta was ready kills it and exits with status 3: a pasta that fails after it
# configured the sandbox's namespace.
set -u
args=()
while [ $# -gt 0 ]; do
        if [ "$1" = -P ] && [ $# -ge 2 ]; then
                shift 2
                continue
        fi
        args+=("$1")
        shift
done
own=$(mktemp /tmp/dying-pasta.XXXXXX) || exit 2
trap 'rm -f "$own"' EXIT
setpriv --pdeathsig KILL -- /usr/bin/pasta "${args[@]}" -P "$own" &
pasta=$!
for _ in $(seq 1000); do
        [ -s "$own" ] && break
        kill -0 "$pasta" 2>/dev/null || exit 1
        sleep 0.01
done
sleep 1
kill -KILL "$pasta"
wait "$pasta" 2>/dev/null
echo "dying-pasta: gone on purpose" >&2
exit 3
