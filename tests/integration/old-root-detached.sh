#!/usr/bin/env bash
# Must still work (and must hold): after pivot_root the host root is detached. No mount inside
# is the host's root filesystem mounted at its own root, every mount point is one cordon made,
# and the host directory holding the project is not a mount point inside.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "no mount namespace: the command sees the host's mounts"

# The host's root mount: "major:minor root" from field 3 and 4 of its mountinfo line.
host_root=$(awk '$5 == "/" { print $3 " " $4 }' /proc/self/mountinfo | tail -1)

plan 6
run_sandboxed cat /proc/self/mountinfo
inside=$out
check "control: mountinfo is readable inside" "0" "$rc"
check "the host root (${host_root}) is not mounted anywhere inside" "" \
        "$(printf '%s\n' "$inside" | awk -v r="$host_root" '$3 " " $4 == r { print $5 }')"
check "exactly one mount at / inside, a tmpfs" "tmpfs" \
        "$(printf '%s\n' "$inside" | awk '$5 == "/" { sub(/.* - /, ""); print $1 }')"
# Mount points inside: system dirs, /tmp, /dev, /proc, the home and the project (or below them),
# and the mail stub's directory (NETWORK_MAIL_BLOCK, on in every mode but open).
unexpected=$(printf '%s\n' "$inside" | awk '{ print $5 }' | while read -r m; do
        case $m in
        / | /usr | /usr/* | /etc | /etc/* | /lib* | /bin | /sbin) ;;
        /tmp | /dev | /dev/* | /proc | /proc/*) ;;
        /run/cordon/mail-block/*) ;;
        "$HOME" | "$HOME"/*) ;;
        *) echo "$m" ;;
        esac
done)
check "no mount point outside the expected set" "" "$unexpected"
check "the host directory holding \$HOME is not a mount point" "" \
        "$(printf '%s\n' "$inside" | awk -v d="$T_TMP" '$5 == d')"
run_sandboxed sh -c 'cd / && cd .. && pwd && ls -a / | tr "\n" " "'
case "$rc:$out" in
"0:/"*) ok "/.. is / inside (nothing above the new root)" ;;
*) not_ok "/.. is / inside (nothing above the new root)" "rc=$rc" "output: $out" ;;
esac
