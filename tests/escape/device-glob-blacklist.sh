#!/usr/bin/env bash
# Attack: expose a device through a DEVICES glob that DEVICES_BLACKLIST vetoes: the node must be
# absent inside (ENOENT) with a warning naming it. Control: the same glob without the veto
# exposes the node (the glob is expanded against the host's /dev), and the node exists outside.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "DEVICES binds nodes into the sandbox's own /dev"

dev=
for d in /dev/fuse /dev/kvm; do [ -c "$d" ] && { dev=$d; break; }; done
if [ -z "$dev" ]; then
        plan 1
        skip "no /dev/fuse or /dev/kvm on this host" "a DEVICES glob is vetoed by DEVICES_BLACKLIST"
        exit 0
fi
glob="${dev%??}*"   # /dev/fu* or /dev/k*
STAT='import errno, os, sys
try:
    st = os.stat(sys.argv[1])
    print("OK:%d:%d" % (os.major(st.st_rdev), os.minor(st.st_rdev)))
except OSError as e:
    print(errno.errorcode[e.errno])'
want="OK:$(python3 -c "$STAT" "$dev" | cut -d: -f2-)"

plan 4
check "control: $dev exists outside" "$want" "$(python3 -c "$STAT" "$dev")"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --set "DEVICES=$glob" -- \
        python3 -c "$STAT" "$dev" 2>&1)
check "control: DEVICES=$glob exposes $dev" "$want" "$out"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --set "DEVICES=$glob" \
        --set "DEVICES_BLACKLIST=$dev" -- python3 -c "$STAT" "$dev" 2>/dev/null)
check "DEVICES_BLACKLIST vetoes $dev matched by the glob" "ENOENT" "$out"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --set "DEVICES=$glob" \
        --set "DEVICES_BLACKLIST=$dev" -- true 2>&1)
want="cordon: warning: device '$dev' (matched by DEVICES entry '$glob' from --set DEVICES) is shadowed by DEVICES_BLACKLIST entry '$dev' (from --set DEVICES_BLACKLIST); not exposed"
check "the veto names the device, the pattern, the blacklist entry and both origins" "1" \
        "$(printf '%s\n' "$out" | grep -cxF "$want")"
