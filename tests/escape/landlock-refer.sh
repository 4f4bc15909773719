#!/usr/bin/env bash
# Attack (landlock backend): move a file between the read-only root (--ro) and the writable
# project. A hard link out of the read-only root would give the file the project's write rights:
# Landlock refuses the reparenting with EXDEV (the read-only root has no REFER right). A rename
# into the read-only root, or out of it, lacks the MAKE_REG or REMOVE_FILE right there, and EACCES
# prevails over EXDEV. Control: the same operations with --profile unrestricted.
. "$(dirname "$0")/../lib/tap.sh"

ro="$T_TMP/ro"
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet --backend landlock --ro "$ro" "$@" 2>&1) | drop_net_fallback; }

mkdir -p "$ro"
echo "reference" > "$ro/file"
echo "project" > "$T_PROJECT/file"

plan 10
check "control: the read-only root is readable inside" "OK:reference" \
        "$(inside -- python3 -c "$TRY" 'open(p).read()' "$ro/file")"
check "hard link from the read-only root into the project: EXDEV" "EXDEV" \
        "$(inside -- python3 -c "$TRY" 'os.link(p, "link")' "$ro/file")"
check "... and no link appeared" "absent" "$([ -e "$T_PROJECT/link" ] && echo present || echo absent)"
check "rename of a project file into the read-only root: EACCES" "EACCES" \
        "$(inside -- python3 -c "$TRY" 'os.rename("file", p)' "$ro/moved")"
check "rename of the read-only root's file into the project: EACCES" "EACCES" \
        "$(inside -- python3 -c "$TRY" 'os.rename(p, "moved")' "$ro/file")"
check "... and both files are where they were" "reference:project:$(ls "$ro")" \
        "$(cat "$ro/file"):$(cat "$T_PROJECT/file"):file"
check "control: with --profile unrestricted the hard link works" "OK:None" \
        "$(inside --profile unrestricted -- python3 -c "$TRY" 'os.link(p, "link")' "$ro/file")"
check "control: ... and it is the same file" "reference" "$(cat "$T_PROJECT/link" 2>&1)"
check "control: with --profile unrestricted the rename into it works" "OK:None" \
        "$(inside --profile unrestricted -- python3 -c "$TRY" 'os.rename("file", p)' "$ro/moved")"
check "control: ... and moved the file" "project" "$(cat "$ro/moved" 2>&1)"
