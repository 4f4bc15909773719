#!/usr/bin/env bash
# Must work: proxied mode under the landlock backend (no network namespace), against the test
# internet. The proxy variables name a random port of the host's loopback, new each run; an
# allowed host answers through that proxy (curl by name, CONNECT); a blocked host and the host's
# own loopback (the floor) are refused by it with 403. The attacks on the sandbox around the
# proxy have files of their own: net-proxied-landlock-*.sh.
. "$(dirname "$0")/../lib/net.sh"
. "$(dirname "$0")/../lib/proxied-landlock.sh"
landlock_proxied_plan 6

# The port is the proxy variables', random per run.
in_cordon "${P[@]}" -- sh -c 'echo "$HTTP_PROXY $HTTPS_PROXY $ALL_PROXY"'
case $out in "http://127.0.0.1:"*" http://127.0.0.1:"*" socks5h://127.0.0.1:"*) ok "the proxy variables name 127.0.0.1 ($out)" ;;
*) not_ok "the proxy variables name 127.0.0.1" "$out" ;; esac
port=${out%% *}; port=${port##*:}
in_cordon "${P[@]}" -- sh -c 'echo "${HTTP_PROXY##*:}"'
if [ "$out" != "$port" ]; then ok "another run gets another port ($port, $out)"
else
        in_cordon "${P[@]}" -- sh -c 'echo "${HTTP_PROXY##*:}"'
        [ "$out" != "$port" ] && ok "another run gets another port" || not_ok "another run gets another port" "$port three times"
fi

# Through the proxy by name; a blocked name and the host's loopback refused by it.
in_cordon "${P[@]}" -- "${CURL[@]}" "http://$NET_OK_NAME/echo"
case $rc:$out in
"0:method=GET "*"host=$NET_OK_NAME "*) ok "curl by name through the proxy variables" ;;
*) not_ok "curl by name through the proxy variables" "rc=$rc" "out: $out" ;;
esac
in_cordon "${P[@]}" -- sh -c 'python3 -c "$1" connect 127.0.0.1 "${HTTP_PROXY##*:}" "$2"' sh "$NET_PROBE" "$NET_OK_NAME:$E"
check "CONNECT $NET_OK_NAME:$E through the proxy" "200|ping" "$out"
in_cordon "${P[@]}" --block "$NET_OTHER_NAME" -- sh -c 'python3 -c "$1" connect 127.0.0.1 "${HTTP_PROXY##*:}" "$2"' sh "$NET_PROBE" "$NET_OTHER_NAME:$E"
check "CONNECT to a blocked host: refused by the proxy" "403" "${out%%|*}"
in_cordon "${P[@]}" -- sh -c 'python3 -c "$1" connect 127.0.0.1 "${HTTP_PROXY##*:}" "$2"' sh "$NET_PROBE" "127.0.0.1:22"
check "CONNECT to the host's loopback through the proxy: refused (the floor)" "403" "${out%%|*}"
