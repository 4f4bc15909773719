#!/usr/bin/env bash
# Must keep working: PACKAGE_CACHES. npm's and pip's caches are directories of cordon's own
# (~/.cache/cordon/caches/<tool>) that survive the run and are shared by the next sandbox,
# where the tools find them by default (npm config get cache); the host's own ~/.npm is never
# reached, and PACKAGE_CACHES=false turns it off. Both backends: the ns backend binds the cache
# at ~/.npm, the landlock backend points npm_config_cache at it.
. "$(dirname "$0")/../lib/tap.sh"

command -v npm >/dev/null || { echo "1..0 # SKIP npm is not installed"; exit 0; }
mkdir -p "$HOME/.npm"
echo "host" > "$HOME/.npm/host-entry"
cache=$HOME/.cache/cordon/caches/npm

plan 9
run_sandboxed sh -c 'echo first-run > "${npm_config_cache:-$HOME/.npm}/entry" && echo written'
check "a file written into npm's cache inside" "0:written" "$rc:$out"
check "... lands in cordon's cache on the host" "first-run" "$(cat "$cache/entry" 2>&1)"
check "... and not in the host's ~/.npm" "host-entry" "$(ls "$HOME/.npm")"
run_sandboxed sh -c 'cat "${npm_config_cache:-$HOME/.npm}/entry"'
check "the next sandbox finds it" "0:first-run" "$rc:$out"
run_sandboxed sh -c 'cat "${npm_config_cache:-$HOME/.npm}/host-entry"'
check "the host's own cache is not what the sandbox sees" "1" "$rc"
run_sandboxed npm config get cache
check "npm's own idea of its cache is cordon's" \
        "0:$(on_backend "$HOME/.npm" "$cache")" "$rc:$out"
run_sandboxed python3 -c "$TRY" 'open(p, "w").write("x")' "$HOME/.npm/host-entry"
check "a write to ~/.npm inside goes to cordon's cache (ns), or is refused (landlock)" \
        "0:$(on_backend OK:1 EACCES)" "$rc:$out"
check "... and the host's file is unchanged" "host" "$(cat "$HOME/.npm/host-entry")"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --set PACKAGE_CACHES=false -- \
        sh -c 'echo "${npm_config_cache:-unset}"' 2>&1)
check "PACKAGE_CACHES=false: no cache is set up" "unset" "$out"
