#!/usr/bin/env bash
# Attack: from inside, plant commands the host's agents run later: claude's hooks in
# ~/.claude/settings.json and settings.local.json, codex's notify in ~/.codex/config.toml,
# gemini's MCP server in ~/.gemini/settings.json, a hook script in ~/.claude/hooks, and claude's
# MCP servers in ~/.claude.json, each through its real path and through the agent's *_CONFIG_DIR
# variable. Expected: every host file is byte for byte unchanged after the sandbox exits (the
# files are private copies in the agents' private homes, of which only the profiles' writeback
# keys flow back; the hook directory is read-only; ~/.claude.json is on the scratch home), and
# no missing one is made. The user's ~/.claude/CLAUDE.md is seen merged with the profile's note and cannot
# be changed. Control: the same write to a file of claude's state (~/.claude/projects) persists
# on the host.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "private copies inside a writable directory need a mount namespace"

mkdir -p "$HOME/.claude/hooks" "$HOME/.codex" "$HOME/.gemini"
printf '{"model":"opus"}\n' > "$HOME/.claude/settings.json"
printf 'model = "x"\n' > "$HOME/.codex/config.toml"
printf '{"theme":"dark"}\n' > "$HOME/.gemini/settings.json"
printf '#!/bin/sh\necho hook\n' > "$HOME/.claude/hooks/pre.sh"
printf 'USER RULES\n' > "$HOME/.claude/CLAUDE.md"
rm -f "$HOME/.claude.json" "$HOME/.claude/settings.local.json" "$HOME/.claude/projects/planted"
snap="$T_TMP/before"
mkdir -p "$snap"
for f in .claude/settings.json .codex/config.toml .gemini/settings.json .claude/hooks/pre.sh .claude/CLAUDE.md; do
        mkdir -p "$snap/$(dirname "$f")"; cp "$HOME/$f" "$snap/$f"
done

HOOK='{"model":"opus","hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"touch /tmp/pwned"}]}]}}'
(cd "$T_PROJECT" && "$CORDON" run --quiet -- sh -c '
        for f in "$HOME/.claude/settings.json" "$CLAUDE_CONFIG_DIR/settings.json" \
                 "$HOME/.claude/settings.local.json" "$CLAUDE_CONFIG_DIR/settings.local.json"; do
                printf "%s\n" "$1" > "$f"
        done
        printf "notify = [\"touch\", \"/tmp/pwned\"]\n" >> "$HOME/.codex/config.toml"
        printf "[mcp_servers.x]\ncommand = \"evil\"\n" >> "$CODEX_HOME/config.toml"
        printf "{\"mcpServers\":{\"x\":{\"command\":\"evil\"}}}\n" > "$HOME/.gemini/settings.json"
        printf "{\"mcpServers\":{\"y\":{\"command\":\"evil\"}}}\n" > "$GEMINI_CLI_HOME/.gemini/settings.json"
        printf "evil\n" >> "$HOME/.claude/hooks/pre.sh" 2>/dev/null
        printf "#!/bin/sh\nevil\n" > "$HOME/.claude/hooks/new.sh" 2>/dev/null
        printf "{\"mcpServers\":{\"z\":{\"command\":\"evil\"}}}\n" > "$HOME/.claude.json"
        printf "planted\n" > "$HOME/.claude/projects/planted"
        true' sh "$HOOK" >"$T_TMP/out" 2>&1)
rc=$?
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet -- sh -c "$1" 2>&1); }

plan 14
check "the sandbox ran" "0" "$rc"
for f in .claude/settings.json .codex/config.toml .gemini/settings.json .claude/hooks/pre.sh; do
        if cmp -s "$snap/$f" "$HOME/$f"; then ok "host ~/$f is byte for byte unchanged"
        else not_ok "host ~/$f is byte for byte unchanged" "$(cat "$HOME/$f")"; fi
done
check "host ~/.claude/settings.local.json was not made" "absent" \
        "$([ -e "$HOME/.claude/settings.local.json" ] && echo present || echo absent)"
check "no new hook script on the host" "absent" \
        "$([ -e "$HOME/.claude/hooks/new.sh" ] && echo present || echo absent)"
check "no ~/.claude.json on the host" "absent" "$([ -e "$HOME/.claude.json" ] && echo present || echo absent)"
check "control: a file of claude's state persists" "planted" \
        "$(cat "$HOME/.claude/projects/planted" 2>&1)"
homes=$(inside 'echo "$CLAUDE_CONFIG_DIR $CODEX_HOME $GEMINI_CLI_HOME"')
case $homes in
/dev/shm/cordon-agents-*/claude\ /dev/shm/cordon-agents-*/codex\ /dev/shm/cordon-agents-*/gemini)
        ok "CLAUDE_CONFIG_DIR, CODEX_HOME and GEMINI_CLI_HOME name the agents' private homes" ;;
*) not_ok "CLAUDE_CONFIG_DIR, CODEX_HOME and GEMINI_CLI_HOME name the agents' private homes" "$homes" ;;
esac
merged=$(inside 'cat "$HOME/.claude/CLAUDE.md"')
case "$merged" in
"USER RULES"*"Sandbox (cordon)"*) ok "CLAUDE.md inside is the user's file with the profile's note" ;;
*) not_ok "CLAUDE.md inside is the user's file with the profile's note" "$merged" ;;
esac
check "CLAUDE.md cannot be written inside" "EROFS" \
        "$(cd "$T_PROJECT" && "$CORDON" run --quiet -- python3 -c "$TRY" 'open(p, "a")' "$HOME/.claude/CLAUDE.md" 2>&1)"
if cmp -s "$snap/.claude/CLAUDE.md" "$HOME/.claude/CLAUDE.md"; then ok "host CLAUDE.md is unchanged"
else not_ok "host CLAUDE.md is unchanged" "$(cat "$HOME/.claude/CLAUDE.md")"; fi
check "the default agents' credentials warning stays quiet (their directories are writable)" "" \
        "$(cd "$T_PROJECT" && "$CORDON" run -- true 2>&1 | grep 'will have to log in')"
