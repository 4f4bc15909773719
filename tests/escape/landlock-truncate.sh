#!/usr/bin/env bash
# Attack (landlock backend): empty a file of the read-only root (--ro) that the user owns and may
# write as far as file permissions go: truncate(2), open(O_TRUNC), open for writing. Expected:
# EACCES from Landlock (TRUNCATE and WRITE_FILE are not granted there) and the file unchanged.
# Control: truncate works with --profile unrestricted.
. "$(dirname "$0")/../lib/tap.sh"

ro="$T_TMP/ro"
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet --backend landlock --ro "$ro" "$@" 2>&1) | drop_net_fallback; }

mkdir -p "$ro"
echo "keep me" > "$ro/file"
chmod 644 "$ro/file"

plan 6
check "control: the file is readable inside" "OK:keep me" \
        "$(inside -- python3 -c "$TRY" 'open(p).read()' "$ro/file")"
check "truncate(2) in the read-only root: EACCES" "EACCES" \
        "$(inside -- python3 -c "$TRY" 'os.truncate(p, 0)' "$ro/file")"
check "open(O_WRONLY|O_TRUNC) in the read-only root: EACCES" "EACCES" \
        "$(inside -- python3 -c "$TRY" 'os.open(p, os.O_WRONLY | os.O_TRUNC)' "$ro/file")"
check "open for appending in the read-only root: EACCES" "EACCES" \
        "$(inside -- python3 -c "$TRY" 'open(p, "a")' "$ro/file")"
check "... and the file is unchanged" "keep me" "$(cat "$ro/file")"
check "control: with --profile unrestricted truncate works" "OK:None:0" \
        "$(inside --profile unrestricted -- python3 -c "$TRY" 'os.truncate(p, 0)' "$ro/file"):$(stat -c %s "$ro/file")"
