#!/usr/bin/env bash
# Installs the Debian 12 packages cordon needs to build and test, only those missing.
# Runs as root, or through sudo when available. Prints nothing when all are present.
set -euo pipefail
build_pkgs=(gcc g++ make meson ninja-build pkg-config libseccomp-dev libjansson-dev libc-ares-dev libnftables-dev libtomlplusplus-dev libarchive-dev nettle-dev libmicrohttpd-dev libcurl4-openssl-dev libslurm-dev passt)
test_pkgs=(libcriterion-dev git python3 util-linux procps iproute2 passwd groff-base bubblewrap clang-format clang tmux vim nftables dnsmasq-base curl python3-pip npm apparmor slurm-wlm munge libpmi2-0-dev)
want=("${build_pkgs[@]}")
[ "${1:-}" = "--test" ] && want+=("${test_pkgs[@]}")
missing=()
for p in "${want[@]}"; do
        # npm also comes with other builds of Node.js (nodesource's nodejs ships it, and
        # conflicts with Debian's npm package): a working npm command is enough.
        if [ "$p" = npm ] && command -v npm >/dev/null; then continue; fi
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "cordon: installing missing packages: ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then sudo=(); elif command -v sudo >/dev/null; then sudo=(sudo); else
        echo "cordon: need root or sudo to install: ${missing[*]}" >&2; exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
