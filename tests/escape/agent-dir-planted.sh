#!/usr/bin/env bash
# Attack: plant what an agent loads on the host later into its own home directory: a slash
# command or a subagent for claude (~/.claude/commands, agents, skills, output-styles), a prompt
# for codex (~/.codex/prompts), a command or a policy for gemini (~/.gemini/commands, policies),
# in the default scratch home and with HOME_ACCESS=write, under both backends. Expected: the
# agent's directory is read-only around its state: EROFS under the ns backend, EACCES under the
# landlock one, and nothing reaches the host. Control: the state each agent writes (claude's
# transcripts, codex's sessions, gemini's chats, claude's login file written in place) stays
# writable and persists.
. "$(dirname "$0")/../lib/tap.sh"

mkdir -p "$HOME/.claude/commands" "$HOME/.codex" "$HOME/.gemini" "$HOME/.ssh" "$HOME/.aws" "$HOME/.gnupg"
backends="ns"
if (cd "$T_PROJECT" && "$CORDON" run --quiet --backend landlock -- true) >/dev/null 2>&1; then
        backends="ns landlock"
fi
write='(os.makedirs(os.path.dirname(p), exist_ok=True), open(p, "w").write("x"))[1]'
planted=(.claude/commands/x.md .claude/agents/x.md .claude/skills/x/SKILL.md
         .claude/output-styles/x.md .claude/CLAUDE.local.md .codex/prompts/x.md
         .gemini/commands/x.toml .gemini/policies/x.toml)
state=(.claude/projects/p/s.jsonl .claude/todos/t.json .codex/sessions/s.jsonl .gemini/tmp/h/c.json)

plan $((2 * 2 * (${#planted[@]} + ${#state[@]} + 2)))
for backend in ns landlock; do
        for mode in tmpwrite write; do
                label="$backend, HOME_ACCESS=$mode"
                if [[ " $backends " != *" $backend "* ]]; then
                        for i in $(seq $((${#planted[@]} + ${#state[@]} + 2))); do
                                skip "the landlock backend is not available here" "$label"
                        done
                        continue
                fi
                inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet --backend "$backend" \
                        --home-access "$mode" -- python3 -c "$TRY" "$1" "$2" 2>&1) |
                        drop_net_fallback; }
                [ "$backend" = landlock ] && errno=EACCES || errno=EROFS
                for f in "${planted[@]}"; do
                        rm -rf "${HOME:?}/$f"
                        check "$label: ~/$f cannot be written: $errno" "$errno" \
                                "$(inside "$write" "$HOME/$f")"
                done
                gone=yes
                for f in "${planted[@]}"; do [ -e "$HOME/$f" ] && gone="~/$f"; done
                check "$label: nothing planted reached the host" "yes" "$gone"
                for f in "${state[@]}"; do
                        rm -f "${HOME:?}/$f"
                        inside "$write" "$HOME/$f" >/dev/null
                        check "control, $label: state ~/$f persists" "x" "$(cat "$HOME/$f" 2>&1)"
                done
                check "control, $label: ~/.claude/.credentials.json is written in place" "OK:5" \
                        "$(inside 'open(p, "w").write("login")' "$HOME/.claude/.credentials.json")"
        done
done
