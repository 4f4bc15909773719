#!/usr/bin/env bash
# Attack: use a descriptor the caller left open (fd 7 on a secret file) from inside the sandbox.
# cordon closes every fd above 2. Control: without cordon the same command reads the secret.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet -- python3 -c "$TRY" "$@" 2>&1); }

echo "fd-l3ak-s3cret" > "$T_TMP/secret"

plan 6
check "control: fd 7 reads the secret outside" "OK:fd-l3ak-s3cret" \
        "$(python3 -c "$TRY" 'os.read(7, 100).decode()' 7<"$T_TMP/secret" 2>&1)"
check "fstat(7) inside: EBADF" "EBADF" "$(inside 'os.fstat(7)' 7<"$T_TMP/secret")"
check "read(7) inside: EBADF" "EBADF" "$(inside 'os.read(7, 100).decode()' 7<"$T_TMP/secret")"
check "/proc/self/fd/7 inside: ENOENT" "ENOENT" \
        "$(inside 'open("/proc/self/fd/7").read()' 7<"$T_TMP/secret")"
# The one descriptor cordon hands the command on purpose, where the host has Slurm: the chaperon's
# doorbell, a socket named by CORDON_SLURM_FD (slurm-chaperon.sh tests it).
check "no fd above 2 is open inside but the chaperon's doorbell (3, 4, 9, 20 and 200 were passed in)" "OK:[]" \
        "$(inside '[f for f in range(3, 1024) if os.path.exists("/proc/self/fd/%d" % f) and not (
                str(f) == os.environ.get("CORDON_SLURM_FD") and __import__("stat").S_ISSOCK(os.fstat(f).st_mode))]' \
                3<"$T_TMP/secret" 4<"$T_TMP/secret" 9<"$T_TMP/secret" 20<"$T_TMP/secret" \
                200<"$T_TMP/secret")"
check "the secret is not readable through /dev/fd/7 either" "ENOENT" \
        "$(inside 'open("/dev/fd/7").read()' 7<"$T_TMP/secret")"
