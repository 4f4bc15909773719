#!/usr/bin/env bash
# Must still work: --ro binds a host directory read-only, --rw read-write, both at the same path;
# an explicit --ro $HOME shows the home read-only (like --rw $HOME shows it read-write); --setenv
# sets a variable.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1) | grep -v '^cordon: warning: created empty' | drop_net_fallback; }
mkdir -p "$T_TMP/data" "$HOME/notes"
echo "shared data" > "$T_TMP/data/f"
echo "note" > "$HOME/notes/a"

plan 8
check "--ro DIR: readable" "OK:shared data" \
        "$(inside --ro "$T_TMP/data" -- python3 -c "$TRY" 'open(p).read()' "$T_TMP/data/f")"
check "--ro DIR: creating a file is refused" "$(on_backend EROFS EACCES)" \
        "$(inside --ro "$T_TMP/data" -- python3 -c "$TRY" 'open(p, "w")' "$T_TMP/data/g")"
check "--rw DIR: writable" "OK:3" \
        "$(inside --rw "$T_TMP/data" -- python3 -c "$TRY" 'open(p, "w").write("new")' "$T_TMP/data/g")"
check "--rw DIR: the write is on the host" "new" "$(cat "$T_TMP/data/g" 2>&1)"
check "--rw \$HOME: ~/notes/a readable" "OK:note" \
        "$(inside --rw "$HOME" -- python3 -c "$TRY" 'open(p).read()' "$HOME/notes/a")"
check "--ro \$HOME: ~/notes/a readable" "OK:note" \
        "$(inside --ro "$HOME" -- python3 -c "$TRY" 'open(p).read()' "$HOME/notes/a")"
check "--setenv FOO=bar" "OK:bar" \
        "$(inside --setenv FOO=bar -- python3 -c "$TRY" 'os.environ["FOO"]')"
check "--setenv overrides an inherited variable" "OK:inside" \
        "$(EDITOR=outside inside --setenv EDITOR=inside -- python3 -c "$TRY" 'os.environ["EDITOR"]')"
