#!/usr/bin/env bash
# Attack: use the capabilities a user namespace normally grants its root: mount over a path,
# chroot, create device nodes. cordon drops them all (bounding set included) and sets
# no-new-privs. Control: in a plain `unshare -Urm` outside the same mount succeeds.
. "$(dirname "$0")/../lib/tap.sh"

PRIV='import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_void_p]
def res(v):
    return "OK" if v == 0 else errno.errorcode[ctypes.get_errno()]
os.makedirs("/tmp/m", exist_ok=True)
op = sys.argv[1]
if op == "mount":
    print(res(libc.mount(b"tmpfs", b"/tmp/m", b"tmpfs", 0, None)))
elif op == "chroot":
    print(res(libc.chroot(b"/tmp/m")))
elif op == "mknod":
    print(res(libc.mknod(b"/tmp/m/null", 0o20666, os.makedev(1, 3))))'

plan 7
out=$(unshare -Urm python3 -c "$PRIV" mount 2>&1)
case $out in
OK) ok "control: mount(tmpfs) works as root of a plain user namespace outside" ;;
*) skip "unprivileged user namespaces with mount are unavailable outside ($out)" \
        "control: mount(tmpfs) works as root of a plain user namespace outside" ;;
esac
run_sandboxed python3 -c "$PRIV" mount
check "mount(tmpfs) inside: EPERM" "EPERM" "$out"
run_sandboxed python3 -c "$PRIV" chroot
check "chroot inside: EPERM" "EPERM" "$out"
run_view_only python3 -c "$PRIV" mknod
check "mknod of a device inside, namespace view alone: EPERM" "EPERM" "$out"
run_sandboxed python3 -c "$PRIV" mknod
check "mknod of a device inside, with Landlock (MAKE_CHAR never granted): EACCES" "EACCES" "$out"
run_sandboxed sh -c 'grep -E "^Cap(Inh|Prm|Eff|Bnd|Amb):" /proc/self/status | cut -f2 | sort -u'
check "all capability sets are empty, the bounding set too" "0000000000000000" "$out"
run_sandboxed sh -c 'grep "^NoNewPrivs:" /proc/self/status | tr -d "\t "'
check "no-new-privs is set" "NoNewPrivs:1" "$out"
