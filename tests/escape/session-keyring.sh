#!/usr/bin/env bash
# Attack: read a key the caller possesses through its session keyring (as a login's Kerberos
# ticket or ecryptfs passphrase would be). Possession, not uid, grants the access, so a user
# namespace alone does not hide it; cordon gives the sandbox a new session keyring.
# Control: a plain child process in the same session reads the key.
. "$(dirname "$0")/../lib/tap.sh"

# keys.py join|read|session: join a new session keyring holding a "user" key and run argv[2:]
# with KEYID set; read the key KEYID; print the session keyring's id.
cat >"$T_TMP/keys.py" <<'PY'
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
SYS_keyctl, SYS_add_key = 250, 248
def keyctl(*a):
    r = libc.syscall(SYS_keyctl, *a)
    return r if r >= 0 else -ctypes.get_errno()
mode = sys.argv[1]
if mode == "join":
    keyctl(1, None)  # KEYCTL_JOIN_SESSION_KEYRING, anonymous
    payload = b"k3yring-s3cret"
    kid = libc.syscall(SYS_add_key, b"user", b"cordon-test", payload, len(payload),
                       ctypes.c_int(-3))  # KEY_SPEC_SESSION_KEYRING
    os.environ["KEYID"] = str(kid)
    os.execvp(sys.argv[2], sys.argv[2:])
elif mode == "read":
    buf = ctypes.create_string_buffer(64)
    r = keyctl(11, int(os.environ["KEYID"]), buf, 64)  # KEYCTL_READ
    print(buf.raw[:r].decode() if r >= 0 else errno.errorcode[-r])
else:
    print(keyctl(0, -3, 0))  # KEYCTL_GET_KEYRING_ID of the session keyring
PY
chmod 644 "$T_TMP/keys.py"

plan 4
out=$(python3 "$T_TMP/keys.py" join sh -c '
python3 "$1" read
python3 "$1" session
cd "$2" && "$3" run --quiet --profile unrestricted --ro "$1" -- sh -c "python3 \"\$1\" read; python3 \"\$1\" session" sh "$1"
cd "$2" && "$3" run --quiet --ro "$1" -- python3 "$1" read
' sh "$T_TMP/keys.py" "$T_PROJECT" "$CORDON" 2>&1)
outside_key=$(printf '%s\n' "$out" | sed -n 1p)
outside_ring=$(printf '%s\n' "$out" | sed -n 2p)
check "control: a child in the same session reads the key" "k3yring-s3cret" "$outside_key"
check "inside, namespace view alone: reading the key fails with EACCES" "EACCES" "$(printf '%s\n' "$out" | sed -n 3p)"
check "inside, with seccomp (keyctl refused): EPERM" "EPERM" "$(printf '%s\n' "$out" | sed -n 5p)"
inside_ring=$(printf '%s\n' "$out" | sed -n 4p)
if [ -n "$inside_ring" ] && [ "$inside_ring" != "$outside_ring" ]; then
        ok "inside: a different session keyring ($inside_ring, not $outside_ring)"
else
        not_ok "inside: a different session keyring" "outside: $outside_ring" "inside: $inside_ring" "$out"
fi
