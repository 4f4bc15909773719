#!/usr/bin/env bash
# Must still work: --device exposes a character device node that is not blacklisted (the first
# of /dev/fuse, /dev/kvm, /dev/net/tun on this host) and nothing else is added to /dev; an entry
# that matches nothing (a glob, or a path, as the NVIDIA defaults on a CPU node) is dropped
# without a word, and --dry-run lists it.
. "$(dirname "$0")/../lib/tap.sh"

dev=
for d in /dev/fuse /dev/kvm /dev/net/tun; do [ -c "$d" ] && { dev=$d; break; }; done
if [ -z "$dev" ]; then
        plan 1
        skip "no /dev/fuse, /dev/kvm or /dev/net/tun on this host" "--device exposes a device node"
        exit 0
fi
want=$(stat -c %t:%T "$dev")

plan 4
run_sandboxed ls /dev
check "control: without --device, $(basename "$dev") is absent" "absent" \
        "$(printf '%s\n' "$out" | grep -qx "$(basename "$dev")" && echo present || echo absent)"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --device "$dev" -- stat -c %F:%t:%T "$dev" 2>&1); rc=$?
take_net_fallback
check "--device $dev: the node is there inside" "0:character special file:$want" "$rc:$out"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --device /dev/nonexistent-cordon \
        --device '/dev/nvidia-cordon*' -- true 2>&1); rc=$?
take_net_fallback
check "--device matching nothing (a path, a glob): silent, the run goes on" "0:" "$rc:$out"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --device '/dev/nvidia-cordon*' --dry-run -- true 2>&1)
check "--dry-run lists what matched nothing" "1" \
        "$(printf '%s\n' "$out" | grep -c "^devices that match nothing here.*/dev/nvidia-cordon\* (from --device)")"
