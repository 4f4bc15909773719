#!/usr/bin/env bash
# Attack: put commands into an agent's configuration in a HOME_WRITABLE directory (claude's
# hooks in ~/.claude/settings.json, codex's notify in ~/.codex/config.toml), which the agent runs
# on the host next time. Expected: those files are read-only inside (EROFS; a missing one is
# created empty first); the rest of ~/.claude stays writable. Control: another file there.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "read-only files inside a writable directory need a mount namespace"

mkdir -p "$HOME/.codex"
echo 'model = "x"' > "$HOME/.codex/config.toml"
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet -- python3 -c "$TRY" "$1" "$2" 2>&1); }

plan 6
check "writing ~/.claude/settings.json: EROFS" "EROFS" "$(inside 'open(p, "w")' "$HOME/.claude/settings.json")"
check "writing ~/.claude/settings.local.json: EROFS" "EROFS" \
        "$(inside 'open(p, "w")' "$HOME/.claude/settings.local.json")"
check "writing ~/.codex/config.toml: EROFS" "EROFS" "$(inside 'open(p, "a")' "$HOME/.codex/config.toml")"
check "replacing ~/.gemini/settings.json by rename: EBUSY" "EBUSY" \
        "$(inside 'open(p + ".new", "w").close() or os.rename(p + ".new", p)' "$HOME/.gemini/settings.json")"
check "the created settings.json holds an empty document" "{}" "$(cat "$HOME/.claude/settings.json")"
check "control: ~/.claude/other.json is writable" "OK:None" \
        "$(inside 'open(p, "w").close()' "$HOME/.claude/other.json")"
