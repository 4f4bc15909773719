#!/usr/bin/env bash
# Attack: put commands into an agent's configuration in a HOME_WRITABLE directory (claude's
# hooks in ~/.claude/settings.json, codex's notify in ~/.codex/config.toml), which the agent runs
# on the host next time. Expected: those files are private copies inside (the agent profiles'
# exec_config): writes succeed there and never reach the host file, which stays byte for byte
# what it was (a missing one is created empty first); replacing one by rename fails (EROFS); the
# rest of ~/.claude is read-only but for the agent's state. Control: a file of its state persists.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "private copies inside a writable directory need a mount namespace"

mkdir -p "$HOME/.claude" "$HOME/.codex" "$HOME/.gemini" # the agents are installed
echo 'model = "x"' > "$HOME/.codex/config.toml"
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet -- python3 -c "$TRY" "$1" "$2" 2>&1); }

plan 8
check "writing ~/.claude/settings.json inside works on the copy" "OK:7" \
        "$(inside 'open(p, "w").write("{\"x\":1}")' "$HOME/.claude/settings.json")"
check "the host's ~/.claude/settings.json holds the empty document it was created with" "{}" \
        "$(cat "$HOME/.claude/settings.json")"
inside 'open(p, "w").write("{\"hooks\":1}")' "$HOME/.claude/settings.local.json" >/dev/null
check "~/.claude/settings.local.json: the host keeps its empty document" "{}" \
        "$(cat "$HOME/.claude/settings.local.json")"
inside 'open(p, "a").write("notify = [\"evil\"]\n")' "$HOME/.codex/config.toml" >/dev/null
check "~/.codex/config.toml: the host keeps its contents" 'model = "x"' "$(cat "$HOME/.codex/config.toml")"
check "replacing ~/.gemini/settings.json by rename: EROFS (its directory is read-only)" "EROFS" \
        "$(inside 'open(p + ".new", "w").close() or os.rename(p + ".new", p)' "$HOME/.gemini/settings.json")"
check "the created settings.json holds an empty document" "{}" "$(cat "$HOME/.gemini/settings.json")"
check "~/.claude/other.json cannot be created: EROFS" "EROFS" \
        "$(inside 'open(p, "w").close()' "$HOME/.claude/other.json")"
check "control: ~/.claude/todos/other.json is writable" "OK:None" \
        "$(inside 'open(p, "w").close()' "$HOME/.claude/todos/other.json")"
