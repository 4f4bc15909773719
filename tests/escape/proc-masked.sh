#!/usr/bin/env bash
# Attack: read what the host's procfs says about the whole machine from the sandbox's own procfs:
# the user's keys in /proc/keys (keyrings belong to the user, not to a namespace), host timers
# and kernel memory layout in the files the kernel keeps to root (readable when cordon runs as
# root, since the sandbox's uid 0 is the host's). Each is masked with an empty read-only file;
# for any other user the kernel already refuses the root-only ones (EACCES), and cordon leaves
# them to it.
# Control: outside, /proc/keys lists a key added for the test; inside, the rest of /proc works.
. "$(dirname "$0")/../lib/tap.sh"

# keys.py: joins a new session keyring (gone with this process tree: nothing to clean up),
# adds a "user" key named argv[1] to it and runs argv[2:].
cat >"$T_TMP/keys.py" <<'PY'
import ctypes, os, platform, sys
libc = ctypes.CDLL(None, use_errno=True)
SYS_keyctl, SYS_add_key = {"aarch64": (219, 217)}.get(platform.machine(), (250, 248))
libc.syscall(SYS_keyctl, 1, None)  # KEYCTL_JOIN_SESSION_KEYRING, anonymous
if libc.syscall(SYS_add_key, b"user", sys.argv[1].encode(), b"x", 1, ctypes.c_int(-3)) < 0:
    sys.exit("add_key: " + os.strerror(ctypes.get_errno()))
os.execvp(sys.argv[2], sys.argv[2:])
PY
chmod 644 "$T_TMP/keys.py"
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet -- python3 -c "$TRY" "$@" 2>&1); }
desc="cordon-proc-keys-$$"
# A root-only file inside: empty and read-only as root, refused by the kernel otherwise.
empty=EACCES bytes=EACCES ro=EACCES
[ "$(id -u)" = 0 ] && empty="OK:''" bytes=OK:0 ro=EROFS

plan 12
# shellcheck disable=SC2016 # $1.. are the inner shell's
out=$(python3 "$T_TMP/keys.py" "$desc" sh -c '
grep -c "$1" /proc/keys
cd "$2" && "$3" run --quiet -- python3 -c "$4" "repr(open(p).read())" /proc/keys
' sh "$desc" "$T_PROJECT" "$CORDON" "$TRY" 2>&1)
check "control: outside, /proc/keys lists the key just added" "1" "$(printf '%s\n' "$out" | sed -n 1p)"
check "inside, with the same key in the session: /proc/keys reads empty" "OK:''" \
        "$(printf '%s\n' "$out" | sed -n 2p)"
check "writing /proc/keys inside: EROFS" "EROFS" "$(inside 'open(p, "w").write("x")' /proc/keys)"
check "/proc/timer_list inside reads empty (or EACCES)" "$empty" \
        "$(inside 'repr(open(p).read())' /proc/timer_list)"
check "/proc/slabinfo inside reads empty (or EACCES)" "$empty" \
        "$(inside 'repr(open(p).read())' /proc/slabinfo)"
check "/proc/vmallocinfo inside reads empty (or EACCES)" "$empty" \
        "$(inside 'repr(open(p).read())' /proc/vmallocinfo)"
check "/proc/kpageflags inside reads empty (or EACCES)" "$bytes" \
        "$(inside 'len(open(p, "rb").read(8))' /proc/kpageflags)"
check "writing /proc/timer_list inside: EROFS (or EACCES)" "$ro" \
        "$(inside 'open(p, "w").write("x")' /proc/timer_list)"
if [ -d /proc/acpi ]; then
        check "/proc/acpi inside is an empty directory" "OK:[]" "$(inside 'os.listdir(p)' /proc/acpi)"
        check "creating in /proc/acpi inside: EROFS" "EROFS" \
                "$(inside 'open(p + "/x", "w")' /proc/acpi)"
else
        ok "/proc/acpi inside is an empty directory # SKIP no /proc/acpi on this kernel"
        ok "creating in /proc/acpi inside: EROFS # SKIP no /proc/acpi on this kernel"
fi
check "control: /proc/self/status still reads inside" "OK:True" \
        "$(inside 'open(p).read().startswith("Name:")' /proc/self/status)"
check "control: /proc/meminfo still reads inside" "OK:True" \
        "$(inside 'open(p).read().startswith("MemTotal:")' /proc/meminfo)"
