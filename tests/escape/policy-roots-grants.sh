#!/usr/bin/env bash
# Attack: write where a capability policy grants only reading: a process write root without
# write_text, a read-only root (never writable, whatever the capabilities), a process read root.
# Each create fails (EROFS under the ns backend, EACCES under the landlock backend) and leaves
# nothing on the host.
# Control: with write_text the write root is writable, and every root is readable, on both
# backends.
. "$(dirname "$0")/../lib/tap.sh"

mkdir -p "$HOME/cache" "$HOME/ref" "$HOME/sdk"
echo ref > "$HOME/ref/f"; echo sdk > "$HOME/sdk/f"
policy() {
        local caps
        caps=$(printf '"%s",' "$@")
        printf '{"capabilities": {"workspace": [%s], "process": ["exec"]}, "workspace_roots": ["%s"], "read_only_roots": ["%s"], "process_sandbox": {"read_roots": ["%s"], "write_roots": ["%s"]}}\n' \
                "${caps%,}" "$T_PROJECT" "$HOME/ref" "$HOME/sdk" "$HOME/cache" > "$T_TMP/policy.json"
}
inside() {
        local backend=$1; shift
        (cd "$T_PROJECT" && "$CORDON" run --quiet --backend "$backend" --policy "$T_TMP/policy.json" \
                -- "$@" 2>&1) | drop_net_fallback
}
create='open(p, "x").write("evil")'

plan 12
for backend in ns landlock; do
        want=$([ $backend = ns ] && echo EROFS || echo EACCES)
        policy read_text
        check "write root without write_text ($backend): creating fails ($want)" "$want" \
                "$(inside $backend python3 -c "$TRY" "$create" "$HOME/cache/evil")"
        check "control ($backend): the read-only root and the read root are readable" "OK:ref OK:sdk" \
                "$(inside $backend sh -c 'python3 -c "$0" "open(p).read()" "$1"; python3 -c "$0" "open(p).read()" "$2"' \
                        "$TRY" "$HOME/ref/f" "$HOME/sdk/f" | tr '\n' ' ' | sed 's/ $//')"
        policy read_text write_text
        check "control ($backend): with write_text the write root is writable" "OK:4" \
                "$(inside $backend python3 -c "$TRY" "$create" "$HOME/cache/made-$backend")"
        check "read-only root with write_text ($backend): creating fails ($want)" "$want" \
                "$(inside $backend python3 -c "$TRY" "$create" "$HOME/ref/evil")"
        check "read root with write_text ($backend): creating fails ($want)" "$want" \
                "$(inside $backend python3 -c "$TRY" "$create" "$HOME/sdk/evil")"
        check "... and nothing was created on the host" "absent" \
                "$([ -e "$HOME/cache/evil" ] || [ -e "$HOME/ref/evil" ] || [ -e "$HOME/sdk/evil" ] && echo present || echo absent)"
done
