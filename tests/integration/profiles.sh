#!/usr/bin/env bash
# Must still work: choosing the backend (--backend, SANDBOX_BACKEND), the profile (--profile) and
# the worktree fallback (CORDON_HANDLER_SANDBOX, HARN_HANDLER_SANDBOX); bad values are usage
# errors naming the variable; --receipt records what was applied.
. "$(dirname "$0")/../lib/tap.sh"

# banner ARGS...: the banner line of `cordon run ARGS -- true`, with any warnings before it.
banner() {
        (cd "$T_PROJECT" && "$CORDON" run "$@" -- true 2>&1)
}
layers() { printf '%s\n' "$1" | sed -n 's/.* layers=\([^ ]*\) .*/\1/p'; }

plan 19
out=$(banner); check "default: worktree with both layers" "landlock,seccomp" "$(layers "$out")"
out=$(banner --profile os_hardened)
check "os_hardened: both layers" "profile=os_hardened:landlock,seccomp" \
        "$(printf '%s' "$out" | grep -o 'profile=[a-z_]*'):$(layers "$out")"
out=$(banner --profile unrestricted)
check "unrestricted: no layer" "none" "$(layers "$out")"

out=$(cd "$T_PROJECT" && "$CORDON" run --profile wasi -- true 2>&1); rc=$?
check "wasi: refused for a host process, exit 125" "125" "$rc"
case $out in *"wasi profile"*) ok "wasi: the error says why" ;; *) not_ok "wasi: the error says why" "$out" ;; esac

out=$(cd "$T_PROJECT" && CORDON_HANDLER_SANDBOX=off "$CORDON" run -- true 2>&1); rc=$?
if [ $rc = 0 ] && [ "$(layers "$out")" = none ] && [[ $out == *"warning: CORDON_HANDLER_SANDBOX=off"* ]]; then
        ok "CORDON_HANDLER_SANDBOX=off: no layer, with a warning"
else
        not_ok "CORDON_HANDLER_SANDBOX=off: no layer, with a warning" "rc=$rc" "$out"
fi
out=$(cd "$T_PROJECT" && HARN_HANDLER_SANDBOX=off "$CORDON" run -- true 2>&1)
check "HARN_HANDLER_SANDBOX=off is read too" "none" "$(layers "$out")"
out=$(cd "$T_PROJECT" && CORDON_HANDLER_SANDBOX=enforce HARN_HANDLER_SANDBOX=off "$CORDON" run -- true 2>&1)
check "CORDON_HANDLER_SANDBOX wins over HARN_HANDLER_SANDBOX" "landlock,seccomp" "$(layers "$out")"
out=$(cd "$T_PROJECT" && CORDON_HANDLER_SANDBOX=off "$CORDON" run --profile os_hardened -- true 2>&1)
check "os_hardened ignores CORDON_HANDLER_SANDBOX=off" "landlock,seccomp" "$(layers "$out")"

out=$(cd "$T_PROJECT" && CORDON_HANDLER_SANDBOX=sometimes "$CORDON" run -- true 2>&1); rc=$?
if [ $rc = 2 ] && [[ $out == *"CORDON_HANDLER_SANDBOX='sometimes'"* ]]; then
        ok "a bad CORDON_HANDLER_SANDBOX is a usage error naming it"
else
        not_ok "a bad CORDON_HANDLER_SANDBOX is a usage error naming it" "rc=$rc" "$out"
fi
out=$(cd "$T_PROJECT" && SANDBOX_BACKEND=docker "$CORDON" run -- true 2>&1); rc=$?
if [ $rc = 2 ] && [[ $out == *"SANDBOX_BACKEND='docker'"* ]]; then
        ok "a bad SANDBOX_BACKEND is a usage error naming it"
else
        not_ok "a bad SANDBOX_BACKEND is a usage error naming it" "rc=$rc" "$out"
fi
out=$(cd "$T_PROJECT" && "$CORDON" run --backend chroot -- true 2>&1); rc=$?
check "a bad --backend: exit 2" "2" "$rc"

# The backend: the flag beats the environment; bwrap is the ns backend's other name.
out=$(cd "$T_PROJECT" && SANDBOX_BACKEND=landlock "$CORDON" run --backend ns -- sh -c 'echo $SANDBOX_BACKEND' 2>&1)
check "--backend ns beats SANDBOX_BACKEND=landlock" "ns" "$(printf '%s\n' "$out" | tail -1)"
out=$(cd "$T_PROJECT" && SANDBOX_BACKEND=bwrap "$CORDON" run -q -- sh -c 'echo $SANDBOX_BACKEND' 2>&1)
check "SANDBOX_BACKEND=bwrap means ns" "ns" "$out"

# The landlock backend: a private TMPDIR, writable, gone afterwards.
out=$(cd "$T_PROJECT" && "$CORDON" run -q --backend landlock -- sh -c \
        'echo "$SANDBOX_BACKEND $TMPDIR"; touch "$TMPDIR/x" && echo written' 2>&1 | drop_net_fallback)
dir=$(printf '%s\n' "$out" | head -1 | cut -d' ' -f2)
if [[ $out == "landlock /tmp/cordon-"*$'\n'written ]] && [ ! -e "$dir" ]; then
        ok "landlock backend: private TMPDIR, writable inside, removed afterwards"
else
        not_ok "landlock backend: private TMPDIR, writable inside, removed afterwards" "$out" "exists: $(ls -d "$dir" 2>&1)"
fi

# The receipt.
(cd "$T_PROJECT" && "$CORDON" run -q --receipt "$T_TMP/receipt.json" -- sh -c 'exit 3')
got=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
l = r["layers"]
print(r["backend"], r["profile"], l["landlock"]["applied"], l["landlock"]["abi"] > 0,
      l["seccomp"]["applied"], l["seccomp"]["instructions"] > 0, r["outcome"]["exit_status"],
      "user" in r["namespaces"])' "$T_TMP/receipt.json" 2>&1)
backend=${SANDBOX_BACKEND:-ns}
userns=True; [ "$backend" = landlock ] && userns=False
check "--receipt: backend, profile, layers applied, exit status" \
        "$backend worktree True True True True 3 $userns" "$got"

# --policy: a read-only workspace root instead of the writable project (also from stdin).
printf '{"capabilities": {"workspace": ["read_text"], "process": ["exec"]}, "workspace_roots": ["%s"]}' \
        "$T_PROJECT" > "$T_TMP/ro.json"
out=$(cd "$T_PROJECT" && "$CORDON" run -q --policy "$T_TMP/ro.json" -- python3 -c "$TRY" 'open(p, "w")' "$T_PROJECT/x" 2>&1 | drop_net_fallback)
check "--policy: a workspace root without write_text is read-only" "$(on_backend EROFS EACCES)" "$out"
out=$(cd "$T_PROJECT" && "$CORDON" run -q --policy - -- python3 -c "$TRY" 'open(p, "w")' "$T_PROJECT/x" 2>&1 <"$T_TMP/ro.json" | drop_net_fallback)
check "--policy -: read from standard input" "$(on_backend EROFS EACCES)" "$out"
printf '{"workspace_roots": ["relative/dir"]}' > "$T_TMP/bad.json"
out=$(cd "$T_PROJECT" && "$CORDON" run -q --policy "$T_TMP/bad.json" -- true 2>&1); rc=$?
if [ $rc = 2 ] && [[ $out == *"bad.json: /workspace_roots/0: "*"absolute"* ]]; then
        ok "--policy: a bad file is a usage error naming the key's pointer"
else
        not_ok "--policy: a bad file is a usage error naming the key's pointer" "rc=$rc" "$out"
fi
