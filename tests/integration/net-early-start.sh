#!/usr/bin/env bash
# The filtered mode's command starts once pasta has configured the sandbox's network namespace
# (its link, addresses and default routes), not when pasta says it is ready, which comes later
# (its buffers and socket pools): what the command sends meanwhile waits in the tap device.
# A stand-in pasta (tests/helpers/slow-pasta.sh) says it is ready three seconds late; another
# (dying-pasta.sh) never does, and kills the real one a second after it was ready: the command,
# started without waiting, then loses its network, and cordon says so in one line naming the mode
# it has from then on (isolated).
# Control: that stand-in alone takes those three seconds, so a launch that waited for it would
# too. Then a sandbox with it starts well within them, and its first connection, made at once,
# reaches the test internet.
. "$(dirname "$0")/../lib/net.sh"
ns_only "the filtered network needs a network namespace"
net_require

slow=$T_SRC/tests/helpers/slow-pasta.sh
plan 5
if ! command -v pasta >/dev/null || ! command -v setpriv >/dev/null; then
        for d in "control: the stand-in says it is ready 3 s late" "the command starts before pasta is ready" \
                "its first connection reaches the test internet" \
                "a pasta that ends during the run is named in one line" \
                "and the command has no network from then on"; do
                skip "pasta or setpriv is missing" "$d"
        done
        exit 0
fi

# The control, outside cordon: the stand-in attached to a namespace of our own.
unshare -Urn sleep 30 &
ns=$!
sleep 0.2
pidf=$T_TMP/ready
start=$(date +%s%N)
"$slow" -f -q --config-net -T none -U none -t none -u none --no-map-gw --runas "$(id -u):$(id -g)" -P "$pidf" "$ns" 2>/dev/null &
sp=$!
for _ in $(seq 600); do [ -s "$pidf" ] && break; sleep 0.01; done
took=$((($(date +%s%N) - start) / 1000000))
kill "$sp" "$ns" 2>/dev/null
wait "$sp" "$ns" 2>/dev/null
if [ -s "$pidf" ] && [ "$took" -ge 3000 ]; then
        ok "control: the stand-in says it is ready 3 s late (${took} ms)"
else
        not_ok "control: the stand-in says it is ready 3 s late" "took ${took} ms; ready file: $(cat "$pidf" 2>&1)"
fi

start=$(date +%s%N)
probe --net filtered --set NETWORK_FILTER_FALLBACK=strict --set "NETWORK_FILTER_HELPER=$slow" -- \
        tcp "$NET_OK_ADDR" "$NET_TCP_ECHO_PORT"
took=$((($(date +%s%N) - start) / 1000000))
if [ "$took" -lt 2500 ]; then
        ok "the command starts before pasta is ready (${took} ms for the whole run)"
else
        not_ok "the command starts before pasta is ready" "the run took ${took} ms: $out"
fi
check "its first connection reaches the test internet" "OK:ping" "$out"

dying=$T_SRC/tests/helpers/dying-pasta.sh
in_cordon --net filtered --set NETWORK_FILTER_FALLBACK=strict --set "NETWORK_FILTER_HELPER=$dying" -- \
        sh -c 'python3 -c "$0" tcp "$1" "$2"; sleep 2.5; python3 -c "$0" tcp "$1" "$2"' \
        "$NET_PROBE" "$NET_OK_ADDR" "$NET_TCP_ECHO_PORT"
case $out in
*"network=isolated from now on (filtered failed: pasta, the filtered network's helper, ended while the sandbox ran (exit status 3: dying-pasta: gone on purpose)): the command has no network beyond its own loopback"*)
        ok "a pasta that ends during the run is named in one line" ;;
*) not_ok "a pasta that ends during the run is named in one line" "$out" ;;
esac
mapfile -t l < <(printf '%s\n' "$out" | grep -v '^cordon: ')
check "and the command has no network from then on (first OK:ping, then ENETUNREACH)" "OK:ping
ENETUNREACH" "${l[0]:-}
${l[1]:-}"
