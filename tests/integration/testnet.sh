#!/usr/bin/env bash
# The test internet itself (tests/lib/testnet.sh), from the host and without cordon: every
# service the network tests rely on answers, so a failure there is cordon's, not the fixture's.
. "$(dirname "$0")/../lib/net.sh"
ns_only "runs no sandbox, once per user is enough"
net_require

plan 29
host_probe tcp "$NET_OK_ADDR" "$NET_TCP_ECHO_PORT"
check "TCP echo on $NET_OK_ADDR:$NET_TCP_ECHO_PORT" "OK:ping" "$out"
host_probe tcp "$NET_OTHER_ADDR" "$NET_TCP_ECHO_PORT2"
check "TCP echo on $NET_OTHER_ADDR:$NET_TCP_ECHO_PORT2" "OK:ping" "$out"
host_probe tcp "$NET_OK_ADDR" "$NET_SMTP_PORT"
check "TCP echo on the SMTP port $NET_OK_ADDR:$NET_SMTP_PORT (for the floor's controls)" "OK:ping" "$out"
host_probe tcp "$NET_FAR_ADDR" "$NET_TCP_ECHO_PORT"
check "TCP echo on $NET_FAR_ADDR (the second subnet, routed over the veth)" "OK:ping" "$out"
host_probe udp "$NET_OK_ADDR" "$NET_UDP_ECHO_PORT"
check "UDP echo on $NET_OK_ADDR:$NET_UDP_ECHO_PORT" "OK:ping" "$out"
host_probe udp "$NET_FAR2_ADDR" "$NET_UDP_ECHO_PORT2"
check "UDP echo on $NET_FAR2_ADDR:$NET_UDP_ECHO_PORT2" "OK:ping" "$out"
if [ "$NET_V6" = 1 ]; then
        host_probe tcp "$NET_OK_ADDR6" "$NET_TCP_ECHO_PORT"
        check "TCP echo on [$NET_OK_ADDR6]:$NET_TCP_ECHO_PORT" "OK:ping" "$out"
else
        skip "no IPv6 on the test veth" "TCP echo over IPv6"
fi

check "HTTP: /echo reports method, target, Host header and the address reached" \
        "method=GET path=/echo/x host=$NET_OK_NAME local=$NET_OK_ADDR port=$NET_HTTP_PORT" \
        "$(curl -sS --max-time 10 -H "Host: $NET_OK_NAME" "http://$NET_OK_ADDR/echo/x" 2>&1)"
check "HTTP on the second port $NET_HTTP_PORT2" \
        "method=GET path=/echo host=$NET_OTHER_ADDR:$NET_HTTP_PORT2 local=$NET_OTHER_ADDR port=$NET_HTTP_PORT2" \
        "$(curl -sS --max-time 10 "http://$NET_OTHER_ADDR:$NET_HTTP_PORT2/echo" 2>&1)"
check "HTTP: a static file" "hello from the testnet" \
        "$(curl -sS --max-time 10 "http://$NET_OK_ADDR/hello.txt" 2>&1)"
check "HTTP: /status/403 answers 403" "403" \
        "$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' "http://$NET_OK_ADDR/status/403" 2>&1)"

dns() { host_probe dns "$NET_DNS" "$@"; }
dns "$NET_OK_NAME"; check "DNS: $NET_OK_NAME" "OK:$NET_OK_ADDR" "$out"
dns "$NET_OTHER_NAME"; check "DNS: $NET_OTHER_NAME" "OK:$NET_OTHER_ADDR" "$out"
dns "a.b.$NET_ZONE"; check "DNS: any name under $NET_ZONE" "OK:$NET_OK_ADDR" "$out"
dns "$NET_FAR_NAME"; check "DNS: $NET_FAR_NAME" "OK:$NET_FAR_ADDR" "$out"
dns "$NET_PYPI_NAME"; check "DNS: $NET_PYPI_NAME" "OK:$NET_PKG_ADDR" "$out"
dns "$NET_MIXED_NAME"; check "DNS: $NET_MIXED_NAME has a good and a loopback address" \
        "OK:127.0.0.1,$NET_OK_ADDR" "$out"
dns "$NET_MISSING_NAME"; check "DNS: $NET_MISSING_NAME is NXDOMAIN" "RCODE:3" "$out"
dns "$NET_REBIND_PRIVATE"; check "DNS: $NET_REBIND_PRIVATE points into 10/8" "OK:10.1.2.3" "$out"
dns "$NET_REBIND_CGNAT"; check "DNS: $NET_REBIND_CGNAT points into 100.64/10" "OK:100.64.1.2" "$out"
dns "$NET_REBIND_LOOP"; check "DNS: $NET_REBIND_LOOP points at loopback" "OK:127.0.0.1" "$out"
dns "$NET_REBIND_ZERO"; check "DNS: $NET_REBIND_ZERO points at 0.0.0.0" "OK:0.0.0.0" "$out"
dns "$NET_REBIND_LINKLOCAL"; check "DNS: $NET_REBIND_LINKLOCAL points at the metadata address" \
        "OK:169.254.169.254" "$out"
dns "$NET_REBIND_MAPPED" AAAA; check "DNS: $NET_REBIND_MAPPED is AAAA ::ffff:127.0.0.1" \
        "OK:::ffff:127.0.0.1" "$out"
dns "$NET_REBIND_LOOP6" AAAA; check "DNS: $NET_REBIND_LOOP6 is AAAA ::1" "OK:::1" "$out"
if [ "$NET_V6" = 1 ]; then
        dns "$NET_V6_NAME" AAAA
        check "DNS: $NET_V6_NAME is AAAA $NET_OK_ADDR6" "OK:$NET_OK_ADDR6" "$out"
else
        skip "no IPv6 on the test veth" "DNS: an IPv6 name"
fi

git clone -q "http://$NET_PKG_ADDR$NET_GIT_PATH" "$T_TMP/clone" >"$T_TMP/git.log" 2>&1
check "git clone over HTTP (dumb protocol)" "hello from the testnet git repository" \
        "$(cat "$T_TMP/clone/README" 2>&1 || cat "$T_TMP/git.log")"
python3 -m pip download -q --no-deps --disable-pip-version-check --no-cache-dir \
        --index-url "http://$NET_PKG_ADDR$NET_PYPI_PATH" --trusted-host "$NET_PKG_ADDR" \
        -d "$T_TMP/pip" "$NET_PKG" >"$T_TMP/pip.log" 2>&1
check "pip download from the simple index" "cordon_testpkg-1.0-py3-none-any.whl" \
        "$(ls "$T_TMP/pip" 2>/dev/null || cat "$T_TMP/pip.log")"
mkdir "$T_TMP/npm"
(cd "$T_TMP/npm" && npm install --no-audit --no-fund --no-update-notifier --cache "$T_TMP/npm-cache" \
        --registry "http://$NET_PKG_ADDR$NET_NPM_PATH" "$NET_PKG") >"$T_TMP/npm.log" 2>&1
check "npm install from the registry stub" "hello from cordon-testpkg" \
        "$(cd "$T_TMP/npm" && node -e "console.log(require('$NET_PKG'))" 2>&1 || cat "$T_TMP/npm.log")"
