#!/usr/bin/env bash
# Attack: read a file another program left in the host's /tmp. The sandbox has its own /tmp.
# Control: the file is readable outside.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet -- python3 -c "$TRY" "$@" 2>&1); }

secret=$(mktemp /tmp/cordon-host-secret.XXXXXX)
trap 'rm -f "$secret"' EXIT
echo "h0st-tmp-s3cret" > "$secret"
chmod 644 "$secret"
name=$(basename "$secret")

plan 4
check "control: the host /tmp file is readable outside" "OK:h0st-tmp-s3cret" \
        "$(python3 -c "$TRY" 'open(p).read()' "$secret" 2>&1)"
check "the host /tmp file: ENOENT inside" "ENOENT" "$(inside 'open(p).read()' "$secret")"
check "its name is not in the listing of /tmp inside" "False" \
        "$(inside 'sys.argv[3] in os.listdir("/tmp")' /tmp "$name" | sed 's/^OK://')"
check "the sandbox /tmp is a fresh tmpfs" "tmpfs" \
        "$(cd "$T_PROJECT" && "$CORDON" run --quiet -- stat -f -c %T /tmp 2>&1)"
