#!/usr/bin/env bash
# Attack: --ro /proc, --rw /dev, --ro /dev/shm, --rw /tmp would silently replace the sandbox's
# own /proc (host processes), /dev (every device), /dev/shm and private /tmp with the host's.
# Each is refused with 125 and a message naming the path. Control: --ro of a directory inside
# /tmp is bound into the private /tmp.
. "$(dirname "$0")/../lib/tap.sh"

refused() { # refused OPTION PATH
        local err rc
        err=$(cd "$T_PROJECT" && "$CORDON" run --quiet "$1" "$2" -- sh -c 'echo COMMAND-RAN' 2>&1)
        rc=$?
        case "$rc:$err" in
        *COMMAND-RAN*) not_ok "$1 $2: 125" "rc=$rc" "output: $err" ;;
        "125:"*"'$2'"*"sandbox's own"*) ok "$1 $2: 125" ;;
        *) not_ok "$1 $2: 125" "rc=$rc" "output: $err" ;;
        esac
}

mkdir -p "$T_TMP/shared"
echo "shared-data" > "$T_TMP/shared/f"

plan 6
refused --ro /proc
refused --ro /proc/self
refused --rw /dev
refused --ro /dev/shm
refused --rw /tmp
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --ro "$T_TMP/shared" -- cat "$T_TMP/shared/f" 2>&1)
check "control: --ro of a directory inside /tmp is visible" "shared-data" "$out"
