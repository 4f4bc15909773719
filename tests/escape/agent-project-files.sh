#!/usr/bin/env bash
# Attack: plant commands into the project's agent and editor files, which the host runs the next
# time an agent starts there or the folder opens: claude's hooks (.claude/settings.json,
# settings.local.json), MCP servers (.mcp.json, .gemini/settings.json, .codex/config.toml), a VS
# Code task that runs on folder open (.vscode/tasks.json), direnv's .envrc, a claude slash command.
# Expected (ns backend): read-only, EROFS, whether they exist or not (the missing ones are made
# first, empty); nothing reaches the host. Control: the rest of the project stays writable, and
# PROTECT_AGENT_PROJECT_FILES=false lets the sandbox write them. The landlock backend leaves them
# writable (keeping them would freeze the top of the project; cordon doctor names the gap): there
# the control is that the top of the project stays writable.
. "$(dirname "$0")/../lib/tap.sh"

files=(.mcp.json .envrc .vscode/tasks.json .claude/settings.json .claude/settings.local.json
       .claude/commands/x.md .gemini/settings.json .codex/config.toml)
write='(os.makedirs(os.path.dirname(p), exist_ok=True), open(p, "w").write("{\"evil\":1}"))[1]'
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet --backend "$backend" -- \
        python3 -c "$TRY" "$1" "$2" 2>&1) | drop_net_fallback; }

plan $((2 * ${#files[@]} + 6))
backend=ns
for f in "${files[@]}"; do
        check "missing: the project's $f cannot be written: EROFS" "EROFS" \
                "$(inside "$write" "$T_PROJECT/$f")"
done
check "the missing .mcp.json was made first, holding no server" '{"mcpServers":{}}' \
        "$(cat "$T_PROJECT/.mcp.json")"
# A project that has them.
mkdir -p "$T_PROJECT/.vscode" "$T_PROJECT/.claude/commands" "$T_PROJECT/.gemini" "$T_PROJECT/.codex"
for f in "${files[@]}"; do echo '{"user":1}' > "$T_PROJECT/$f"; done
for f in "${files[@]}"; do
        check "existing: the project's $f cannot be written: EROFS" "EROFS" \
                "$(inside "$write" "$T_PROJECT/$f")"
done
untouched=yes
for f in "${files[@]}"; do grep -q evil "$T_PROJECT/$f" && untouched="$f"; done
check "no planted command reached the host" "yes" "$untouched"
check "control: a new file at the top of the project is writable" "OK:10" \
        "$(inside "$write" "$T_PROJECT/main.json")"

if (cd "$T_PROJECT" && "$CORDON" run --quiet --backend landlock -- true) >/dev/null 2>&1; then
        backend=landlock
        check "control, landlock: a new file at the top of the project is writable" "OK:10" \
                "$(inside "$write" "$T_PROJECT/other.json")"
else
        skip "the landlock backend is not available here" "control, landlock"
fi

export PROTECT_AGENT_PROJECT_FILES=false
backend=ns
check "the switch: PROTECT_AGENT_PROJECT_FILES=false lets the sandbox write .mcp.json" "OK:10" \
        "$(inside "$write" "$T_PROJECT/.mcp.json")"
check "the switch: the host sees the write" '{"evil":1}' "$(cat "$T_PROJECT/.mcp.json")"
