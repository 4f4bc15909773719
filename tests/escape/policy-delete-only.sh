#!/usr/bin/env bash
# Attack: a capability policy that grants workspace.delete but not write_text made its roots
# writable, so the command could create and rewrite files. delete alone now gives removal only:
# creating a file fails (EROFS under the ns backend, EACCES under the landlock backend, whose
# rules name the rights one by one). Removal is granted where it can be expressed: under the
# landlock backend unlinking works; the ns backend has only read-only and read-write binds, so
# it grants less (EROFS) rather than more.
# Control: with write_text, creating works on both backends.
. "$(dirname "$0")/../lib/tap.sh"

policy() {
        local caps
        caps=$(printf '"%s",' "$@")
        printf '{"capabilities": {"workspace": [%s], "process": ["exec"]}, "workspace_roots": ["%s"]}\n' \
                "${caps%,}" "$T_PROJECT" > "$T_TMP/policy.json"
}
inside() {
        local backend=$1; shift
        (cd "$T_PROJECT" && "$CORDON" run --quiet --backend "$backend" --policy "$T_TMP/policy.json" \
                -- "$@" 2>&1) | drop_net_fallback
}
create='open(p, "x").write("evil")'

plan 10
for backend in ns landlock; do
        policy read_text write_text
        check "control ($backend): with write_text a file is created" "OK:4" \
                "$(inside $backend python3 -c "$TRY" "$create" "$T_PROJECT/made-$backend")"
        policy read_text delete
        want=$([ $backend = ns ] && echo EROFS || echo EACCES)
        check "delete alone ($backend): creating a file fails ($want)" "$want" \
                "$(inside $backend python3 -c "$TRY" "$create" "$T_PROJECT/evil")"
        check "... and nothing was created on the host" "absent" \
                "$([ -e "$T_PROJECT/evil" ] && echo present || echo absent)"
        check "delete alone ($backend): rewriting a file fails ($want)" "$want" \
                "$(inside $backend python3 -c "$TRY" 'open(p, "w")' "$T_PROJECT/made-$backend")"
done
echo x > "$T_PROJECT/doomed"
check "delete alone (landlock): removing a file works" "OK:None" \
        "$(inside landlock python3 -c "$TRY" 'os.unlink(p)' "$T_PROJECT/doomed")"
echo x > "$T_PROJECT/doomed"
check "delete alone (ns): removal cannot be given by a bind, so it is not (EROFS)" "EROFS" \
        "$(inside ns python3 -c "$TRY" 'os.unlink(p)' "$T_PROJECT/doomed")"
