#!/usr/bin/env bash
# Must work in proxied mode, through the proxy variables cordon sets inside: git clone over HTTP,
# pip download from a simple index and npm install from a registry, all on the test internet by
# name; and the same under a NetworkPolicy limited to those hosts, which still refuses others.
. "$(dirname "$0")/../lib/net.sh"
ns_only "proxied mode gives the sandbox its own network namespace"
net_require

GIT="git clone -q http://$NET_GIT_NAME$NET_GIT_PATH clone && cat clone/README"
PIP="python3 -m pip download -q --no-deps --disable-pip-version-check --no-cache-dir \
--index-url http://$NET_PYPI_NAME$NET_PYPI_PATH --trusted-host $NET_PYPI_NAME -d pip $NET_PKG && ls pip"
NPM="mkdir -p npm && cd npm && npm install --no-audit --no-fund --no-update-notifier --cache \"\$PWD/.cache\" \
--registry http://$NET_NPM_NAME$NET_NPM_PATH $NET_PKG >/dev/null && node -e 'console.log(require(\"$NET_PKG\"))'"
P=(--net proxied --proxy-dns "$NET_DNS")
tools() { # tools OPTION...: the three in one sandbox, their outputs in $out
        in_cordon "$@" -- sh -c "rm -rf clone pip npm; ($GIT) 2>&1; ($PIP) 2>&1; ($NPM) 2>&1"
}
want="hello from the testnet git repository
cordon_testpkg-1.0-py3-none-any.whl
hello from cordon-testpkg"

plan 3
tools "${P[@]}"
check "proxied: git clone, pip download, npm install" "$want" "$out"
printf '{"mode":"limited","allowed_hosts":["%s","%s","%s"]}\n' "$NET_GIT_NAME" "$NET_PYPI_NAME" \
        "$NET_NPM_NAME" >"$T_TMP/policy.json"
tools --network-policy "$T_TMP/policy.json" --proxy-dns "$NET_DNS"
check "a NetworkPolicy limited to the three hosts: the same" "$want" "$out"
in_cordon --network-policy "$T_TMP/policy.json" --proxy-dns "$NET_DNS" -- \
        curl -s --max-time 15 -o /dev/null -w '%{http_code}' "http://$NET_OK_NAME/echo"
check "... and another host of the test internet is refused (403)" "403" "$out"
