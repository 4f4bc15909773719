#!/usr/bin/env bash
# Attack: change kernel knobs through /proc/sys, including the network namespace's own ones that
# root of a user namespace may normally write. /proc/sys is read-only inside. Control: in a plain
# `unshare -Urn` outside, net.ipv4.ip_forward is writable; inside it still reads fine.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet -- python3 -c "$TRY" "$@" 2>&1); }
fwd=/proc/sys/net/ipv4/ip_forward

plan 5
out=$(unshare -Urn python3 -c "$TRY" 'open(p, "w").write("1")' "$fwd" 2>&1)
case $out in
OK:1) ok "control: ip_forward is writable as root of a plain user+net namespace outside" ;;
*) skip "unprivileged user+net namespaces unavailable outside ($out)" \
        "control: ip_forward is writable as root of a plain user+net namespace outside" ;;
esac
check "control: ip_forward reads inside" "OK:True" \
        "$(inside 'open(p).read().strip() in ("0", "1")' "$fwd")"
check "writing net.ipv4.ip_forward inside: EROFS" "EROFS" "$(inside 'open(p, "w").write("1")' "$fwd")"
check "writing kernel.hostname inside: EROFS" "EROFS" \
        "$(inside 'open(p, "w").write("x")' /proc/sys/kernel/hostname)"
check "writing vm.drop_caches inside: EROFS" "EROFS" \
        "$(inside 'open(p, "w").write("3")' /proc/sys/vm/drop_caches)"
