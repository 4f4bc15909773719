#!/usr/bin/env bash
# Attack: leave a proxied sandbox without its proxy: raw TCP and UDP to a test-internet host,
# DNS straight to its server, bash's /dev/tcp, TCP over IPv6, and curl told to bypass the proxy
# (NO_PROXY=*, --noproxy). The sandbox's namespace has only loopback (and the proxy's port on
# it): ENETUNREACH. Controls: the same host answers on the host, and through
# the proxy from inside.
. "$(dirname "$0")/../lib/net.sh"
net_require

P=(--net proxied --proxy-dns "$NET_DNS")
E=$NET_TCP_ECHO_PORT
plan 15
host_probe tcp "$NET_OK_ADDR" "$E"
check "control: $NET_OK_ADDR:$E answers on the host" "OK:ping" "$out"
probe "${P[@]}" -- connect "${NET_PROXY%:*}" "${NET_PROXY##*:}" "$NET_OK_ADDR:$E"
check "control: CONNECT $NET_OK_ADDR:$E through the proxy inside" "200|ping" "$out"
in_cordon "${P[@]}" -- "${CURL[@]}" "http://$NET_OK_NAME/echo"
case $rc:$out in
"0:method=GET "*"host=$NET_OK_NAME local=$NET_OK_ADDR port=$NET_HTTP_PORT") ok "control: curl by name through the proxy variables" ;;
*) not_ok "control: curl by name through the proxy variables" "rc=$rc" "out: $out" ;;
esac
probe "${P[@]}" -- tcp "$NET_OK_ADDR" "$E"
check "raw TCP connect to $NET_OK_ADDR:$E, every layer: ENETUNREACH" "ENETUNREACH" "$out"
probe "${P[@]}" --profile unrestricted -- tcp "$NET_OK_ADDR" "$E"
check "raw TCP connect to $NET_OK_ADDR:$E, namespace alone: ENETUNREACH" "ENETUNREACH" "$out"
probe "${P[@]}" -- udp "$NET_OK_ADDR" "$NET_UDP_ECHO_PORT"
check "UDP to $NET_OK_ADDR:$NET_UDP_ECHO_PORT: ENETUNREACH" "ENETUNREACH" "$out"
probe "${P[@]}" -- dns "$NET_DNS" "$NET_OK_NAME"
check "a DNS query straight to $NET_DNS:53: ENETUNREACH" "ENETUNREACH" "$out"
probe "${P[@]}" --profile unrestricted -- tcp "$NET_OK_ADDR6" "$E"
check "raw TCP connect to [$NET_OK_ADDR6]:$E, namespace alone: ENETUNREACH" "ENETUNREACH" "$out"
devtcp_probe "${P[@]}" -- "$NET_OK_ADDR" "$E"
check "bash /dev/tcp/$NET_OK_ADDR/$E, every layer: ENETUNREACH" "ENETUNREACH" "$out"
devtcp_probe "${P[@]}" --profile unrestricted -- "$NET_OK_ADDR" "$E"
check "bash /dev/tcp/$NET_OK_ADDR/$E, namespace alone: ENETUNREACH" "ENETUNREACH" "$out"
# curl: 7 is "failed to connect", 6 "could not resolve host" (no DNS server is reachable).
in_cordon "${P[@]}" -- env NO_PROXY='*' no_proxy='*' "${CURL[@]}" "http://$NET_OK_ADDR/echo"
check "NO_PROXY=* curl http://$NET_OK_ADDR/: curl exit 7 (cannot connect)" "7" "$rc"
in_cordon "${P[@]}" -- "${CURL[@]}" --noproxy '*' "http://$NET_OK_NAME/echo"
check "curl --noproxy '*' http://$NET_OK_NAME/: curl exit 6 (no resolver reachable)" "6" "$rc"
in_cordon "${P[@]}" -- env -u http_proxy -u HTTP_PROXY -u all_proxy -u ALL_PROXY "${CURL[@]}" "http://$NET_OK_ADDR/echo"
check "curl with the proxy variables removed: curl exit 7" "7" "$rc"
in_cordon "${P[@]}" -- python3 -c 'import socket; print(socket.if_nameindex())'
check "the sandbox has only its own loopback interface" "[(1, 'lo')]" "$out"
in_cordon "${P[@]}" -- sh -c 'for v in HTTP_PROXY HTTPS_PROXY ALL_PROXY NO_PROXY http_proxy https_proxy all_proxy no_proxy; do eval "printf \"%s=%s\n\" $v \"\$$v\""; done'
want="HTTP_PROXY=http://$NET_PROXY
HTTPS_PROXY=http://$NET_PROXY
ALL_PROXY=socks5h://$NET_PROXY
NO_PROXY=
http_proxy=http://$NET_PROXY
https_proxy=http://$NET_PROXY
all_proxy=socks5h://$NET_PROXY
no_proxy="
# NO_PROXY names loopback only: compare with its value blanked, then check it.
nop=$(printf '%s\n' "$out" | sed -n 's/^NO_PROXY=//p')
got=$(printf '%s\n' "$out" | sed 's/^\(no_proxy\|NO_PROXY\)=.*/\1=/')
case ,$nop, in
*test.example* | *"*"* | ,,) not_ok "the proxy variables are set inside, NO_PROXY loopback only" "NO_PROXY=$nop" "$out" ;;
*) check "the proxy variables are set inside, NO_PROXY loopback only ($nop)" "$want" "$got" ;;
esac
