#!/usr/bin/env bash
# Attack: under a read-only capability policy (workspace: read_text) /tmp stayed writable (a
# private tmpfs under the ns backend, a private TMPDIR under the landlock backend): scratch
# space the policy never granted. The user_temp preset's scratch is writable only with
# workspace writes: the write fails (EROFS: a read-only empty tmpfs; EACCES under the landlock
# backend, which then makes no TMPDIR).
# Control: with write_text (and the default presets, user_temp among them) the temporary
# directory is writable on both backends.
. "$(dirname "$0")/../lib/tap.sh"

policy() {
        local caps
        caps=$(printf '"%s",' "$@")
        printf '{"capabilities": {"workspace": [%s], "process": ["exec"]}, "workspace_roots": ["%s"]}\n' \
                "${caps%,}" "$T_PROJECT" > "$T_TMP/policy.json"
}
inside() {
        local backend=$1; shift
        (cd "$T_PROJECT" && env -u TMPDIR "$CORDON" run --quiet --backend "$backend" \
                --policy "$T_TMP/policy.json" -- "$@" 2>&1) | drop_net_fallback
}
scratch='open(os.path.join(os.environ.get("TMPDIR", "/tmp"), "scratch"), "x").write("data")'

plan 5
for backend in ns landlock; do
        policy read_text write_text
        check "control ($backend): with write_text the temporary directory is writable" "OK:4" \
                "$(inside $backend python3 -c "$TRY" "$scratch")"
        policy read_text
        want=$([ $backend = ns ] && echo EROFS || echo EACCES)
        # The last line: the landlock backend first says why.
        check "read-only policy ($backend): writing the temporary directory fails ($want)" "$want" \
                "$(inside $backend python3 -c "$TRY" "$scratch" | tail -n 1)"
done
out=$(inside landlock python3 -c "$TRY" "$scratch")
case $out in
*"the capability policy gives no writable temporary directory"*) ok "the landlock backend says the policy gives no temporary directory" ;;
*) not_ok "the landlock backend says the policy gives no temporary directory" "$out" ;;
esac
