#!/usr/bin/env bash
# Attack: plant commands into the project's agent and editor files, which the host runs the next
# time an agent starts there or the folder opens: claude's hooks (.claude/settings.json,
# settings.local.json), MCP servers (.mcp.json, .gemini/settings.json, .codex/config.toml), a VS
# Code task that runs on folder open (.vscode/tasks.json), direnv's .envrc, a claude slash command.
# Expected: read-only under both backends, EROFS under the ns backend (which first makes the
# missing ones, empty), EACCES under the landlock one (existing files: it cannot keep a missing
# name from being made in a directory it lets the sandbox write, cordon(1) says so). Control: the
# rest of the project stays writable, and PROTECT_AGENT_PROJECT_FILES=false lets the sandbox write
# them.
. "$(dirname "$0")/../lib/tap.sh"

files=(.mcp.json .envrc .vscode/tasks.json .claude/settings.json .claude/settings.local.json
       .claude/commands/x.md .gemini/settings.json .codex/config.toml)
write='(os.makedirs(os.path.dirname(p), exist_ok=True), open(p, "w").write("{\"evil\":1}"))[1]'
have_landlock=
(cd "$T_PROJECT" && "$CORDON" run --quiet --backend landlock -- true) >/dev/null 2>&1 && have_landlock=1
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet --backend "$backend" -- \
        python3 -c "$TRY" "$1" "$2" 2>&1); }

plan $((2 * ${#files[@]} + 7))
backend=ns
for f in "${files[@]}"; do
        check "ns: the project's $f cannot be written: EROFS" "EROFS" \
                "$(inside "$write" "$T_PROJECT/$f")"
done
check "ns: the missing .mcp.json was made empty first" '{"mcpServers":{}}' "$(cat "$T_PROJECT/.mcp.json")"
check "control, ns: another file of the project is writable" "OK:10" \
        "$(inside "$write" "$T_PROJECT/src/main.json")"

# A project that has them: the landlock backend keeps them read-only as well.
mkdir -p "$T_PROJECT/.vscode" "$T_PROJECT/.claude/commands" "$T_PROJECT/.gemini" "$T_PROJECT/.codex"
for f in "${files[@]}"; do [ -f "$T_PROJECT/$f" ] || : > "$T_PROJECT/$f"; done
backend=landlock
for f in "${files[@]}"; do
        if [ -n "$have_landlock" ]; then
                check "landlock: the project's $f cannot be written: EACCES" "EACCES" \
                        "$(inside "$write" "$T_PROJECT/$f")"
        else
                skip "the landlock backend is not available here" "landlock: $f"
        fi
done
untouched=yes
for f in "${files[@]}"; do grep -q evil "$T_PROJECT/$f" && untouched="$f"; done
check "no planted command reached the host" "yes" "$untouched"
if [ -n "$have_landlock" ]; then
        check "control, landlock: a file in a directory of the project is writable" "OK:10" \
                "$(inside "$write" "$T_PROJECT/src/main.json")"
else
        skip "the landlock backend is not available here" "control, landlock"
fi

export PROTECT_AGENT_PROJECT_FILES=false
backend=ns
check "the switch: PROTECT_AGENT_PROJECT_FILES=false lets ns write .mcp.json" "OK:10" \
        "$(inside "$write" "$T_PROJECT/.mcp.json")"
if [ -n "$have_landlock" ]; then
        backend=landlock
        check "the switch: PROTECT_AGENT_PROJECT_FILES=false lets landlock write .envrc" "OK:10" \
                "$(inside "$write" "$T_PROJECT/.envrc")"
else
        skip "the landlock backend is not available here" "the switch under landlock"
fi
check "the switch: the host sees the write" '{"evil":1}' "$(cat "$T_PROJECT/.mcp.json")"
