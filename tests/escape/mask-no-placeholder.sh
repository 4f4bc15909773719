#!/usr/bin/env bash
# Attack (on the host): --mask of a path no bind shows inside (here below the host's /tmp, which
# the sandbox replaces by its own) created an empty placeholder and its parent directories on the
# host for nothing. Now nothing is created and the run goes ahead. Control: --mask of a missing
# file in the project still gets its placeholder, and it is empty inside.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "the private /tmp is what leaves the path invisible"

plan 4
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --mask "$T_TMP/elsewhere/key.pem" -- echo ran 2>&1)
check "the run goes ahead, with no placeholder warning" "ran" "$out"
check "no placeholder or parent directory was created on the host" "absent" \
        "$([ -e "$T_TMP/elsewhere" ] && echo present || echo absent)"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --mask "$T_PROJECT/conf/key.pem" -- \
        python3 -c "$TRY" 'open(p).read()' "$T_PROJECT/conf/key.pem" 2>/dev/null)
check "control: the masked project file reads empty inside" "OK:" "$out"
check "control: its placeholder exists on the host" "file" \
        "$([ -f "$T_PROJECT/conf/key.pem" ] && echo file)"
