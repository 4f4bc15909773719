#!/usr/bin/env bash
# Attack: a capability policy that grants no read capability (workspace: write_text only) still
# had its workspace root bound, so the command read everything in it. Without read_text, list
# or exists the workspace roots are not granted at all: reading a file there fails (ENOENT under
# the ns backend, where the root is not mounted; EACCES under the landlock backend).
# Control: the same policy with read_text reads the file, on both backends.
. "$(dirname "$0")/../lib/tap.sh"

echo "project secret" > "$T_PROJECT/secret"
policy() { # policy CAPABILITIES...: a policy file with these workspace capabilities
        local caps
        caps=$(printf '"%s",' "$@")
        printf '{"capabilities": {"workspace": [%s], "process": ["exec"]}, "workspace_roots": ["%s"]}\n' \
                "${caps%,}" "$T_PROJECT" > "$T_TMP/policy.json"
}
inside() { # inside BACKEND ARGS...
        local backend=$1; shift
        (cd "$T_PROJECT" && "$CORDON" run --quiet --backend "$backend" --policy "$T_TMP/policy.json" \
                -- "$@" 2>&1) | drop_net_fallback
}
read_secret='open(p).read()'

plan 4
for backend in ns landlock; do
        policy read_text
        check "control ($backend): with read_text the root is read" "OK:project secret" \
                "$(inside $backend python3 -c "$TRY" "$read_secret" "$T_PROJECT/secret")"
        policy write_text
        want=$([ $backend = ns ] && echo ENOENT || echo EACCES)
        check "no read capability ($backend): reading the root fails ($want)" "$want" \
                "$(inside $backend python3 -c "$TRY" "$read_secret" "$T_PROJECT/secret")"
done
