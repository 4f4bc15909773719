#!/usr/bin/env bash
# Attack: from a nested user+mount namespace, unmount the ~/.ssh mask or bind the home without
# its submounts (non-recursive bind, open_tree) to see under it. The kernel locks inherited mounts.
# Control: in the same nested namespace, an own tmpfs mounts/unmounts and a recursive bind works.
# This tests the view alone (--profile unrestricted): by default seccomp refuses the unshare, a
# layer in front of this one, which the last check shows.
. "$(dirname "$0")/../lib/tap.sh"

# nested OP PATH [DEST]: enters a new user+mount namespace and performs OP; prints OK or errno.
NESTED='import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_void_p]
op, a = sys.argv[1], [x.encode() for x in sys.argv[2:]]
if op in ("bind", "rbind", "tmpfs"):
    os.makedirs(sys.argv[-1], exist_ok=True)  # before unsharing: unmapped ids cannot create files
uid, gid = os.getuid(), os.getgid()
if libc.unshare(0x10000000 | 0x00020000) != 0:
    print("UNSHARE:" + errno.errorcode[ctypes.get_errno()]); sys.exit()
# Root inside the sandbox cannot map its uid 0 without CAP_SETFCAP; the capabilities of the new
# namespace are all the attack needs, so an unmapped identity is fine.
for f, v in (("setgroups", "deny"), ("uid_map", "0 %d 1" % uid), ("gid_map", "0 %d 1" % gid)):
    try:
        with open("/proc/self/" + f, "w") as fh:
            fh.write(v)
    except OSError:
        pass
def res(v):
    return "OK" if v >= 0 else errno.errorcode[ctypes.get_errno()]
def read(path):
    try:
        return "OK:" + open(path).read().strip()
    except OSError as e:
        return errno.errorcode[e.errno]
MS_BIND, MS_REC = 4096, 16384
if op == "umount":
    print(res(libc.umount2(a[0], 0)), read(sys.argv[3]))
elif op == "umount-detach":
    print(res(libc.umount2(a[0], 2)), read(sys.argv[3]))
elif op == "bind":
    print(res(libc.mount(a[0], a[1], None, MS_BIND, None)), read(sys.argv[3] + "/.ssh/id_rsa"))
elif op == "rbind":
    print(res(libc.mount(a[0], a[1], None, MS_BIND | MS_REC, None)), read(sys.argv[3] + "/.ssh/id_rsa"))
elif op == "open_tree":
    print(res(libc.syscall(428, -100, a[0], 1 | 0o2000000)))
elif op == "tmpfs":
    print(res(libc.mount(b"tmpfs", a[0], b"tmpfs", 0, None)), res(libc.umount2(a[0], 0)))'
nested() {
        (cd "$T_PROJECT" && "$CORDON" run --quiet --profile unrestricted --home-access write -- \
                python3 -c "$NESTED" "$@" 2>&1)
}

mkdir -p "$HOME/.ssh" "$HOME/.aws" "$HOME/.gnupg"
chmod 700 "$HOME/.ssh"
echo "SSH-PRIVATE-KEY-n3st3d" > "$HOME/.ssh/id_rsa"
key=$HOME/.ssh/id_rsa

probe=$(nested tmpfs /tmp/own)
case $probe in
UNSHARE:*)
        plan 1
        skip "nested user namespaces unavailable inside the sandbox (${probe#UNSHARE:})" \
                "nested namespace attacks on the ~/.ssh mask"
        exit 0 ;;
esac
plan 8
check "control: an own tmpfs mounts and unmounts in the nested namespace" "OK OK" "$probe"
check "control: a recursive bind of \$HOME works and carries the mask" "OK ENOENT" \
        "$(nested rbind "$HOME" /tmp/peek /tmp/peek)"
check "umount(~/.ssh): EINVAL, key still ENOENT" "EINVAL ENOENT" "$(nested umount "$HOME/.ssh" "$key")"
check "umount2(~/.ssh, MNT_DETACH): EINVAL, key still ENOENT" "EINVAL ENOENT" \
        "$(nested umount-detach "$HOME/.ssh" "$key")"
check "non-recursive bind of \$HOME: EINVAL, nothing under it" "EINVAL ENOENT" \
        "$(nested bind "$HOME" /tmp/peek /tmp/peek)"
check "non-recursive open_tree(OPEN_TREE_CLONE) of \$HOME: EINVAL" "EINVAL" "$(nested open_tree "$HOME")"
check "umount of the home bind itself: EINVAL" "EINVAL ENOENT" "$(nested umount "$HOME" "$key")"
check "with the hardening layers, the nested namespace is refused: EPERM" "UNSHARE:EPERM" \
        "$(cd "$T_PROJECT" && "$CORDON" run --quiet --home-access write -- \
                python3 -c "$NESTED" umount "$HOME/.ssh" "$key" 2>&1)"
