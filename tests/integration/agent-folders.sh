#!/usr/bin/env bash
# Must keep working: agent-sandbox's agent folders (~/.config/agent-sandbox/agents/<name>/ with
# config.conf, overlay.sh, agent.md, settings.json) read as they are. A folder of a name of its
# own is a profile: its writable path is writable inside, its readable one read-only, its
# instruction file shows merged with its note, its credential variable passes; overlay.sh is
# not run, and one line says so. claude's folder extends the built-in profile: its settings.json
# adds allow rules and hooks to the private copy. A config.conf with a syntax error or a path
# outside the home refuses, naming the file and line. Agents that are not installed leave a
# fresh home exactly as it was. The fixtures are this test's own.
. "$(dirname "$0")/../lib/tap.sh"

agents=$HOME/.config/agent-sandbox/agents
mkdir -p "$agents/myagent" "$agents/claude" "$HOME/.myagent" "$HOME/.claude" "$HOME/.gemini" \
        "$HOME/.config/cordon"
printf 'ENABLED_AGENTS=(myagent claude gemini)\n' > "$HOME/.config/cordon/sandbox.conf"
cat > "$agents/myagent/config.conf" <<'EOF'
# myagent: a made-up agent of this test.
AGENT_CREDENTIAL_ENV_VARS=("MYAGENT_TOKEN")
AGENT_AUTH_MARKERS=("$HOME/.myagent/login.json")
AGENT_REQUIRED_WRITABLE_PATHS=(
    "$HOME/.myagent"
)
AGENT_REQUIRED_READABLE_PATHS=("$HOME/.myagent.conf")
AGENT_BLOCKED_FILES=("$HOME/.myagent/RULES.md")
AGENT_LOGIN_HINT="start myagent and sign in"
EOF
printf '# host-side setup cordon never runs\ntouch "$HOME/overlay-ran"\n' > "$agents/myagent/overlay.sh"
printf '## fixture note\nmyagent runs confined.\nHelp: __SANDBOX_DIR__/agents/sandbox-help.md\n' \
        > "$agents/myagent/agent.md"
printf 'user rules\n' > "$HOME/.myagent/RULES.md"
printf 'level=1\n' > "$HOME/.myagent.conf"
printf '{"permissions":{"allow":["WebFetch"]},"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo fixture-hook"}]}]}}\n' \
        > "$agents/claude/settings.json"
# As agent-sandbox's own claude folder has it: the whole directory, and the state file beside it.
printf 'AGENT_REQUIRED_WRITABLE_PATHS=("$HOME/.claude" "$HOME/.claude.json")\n' > "$agents/claude/config.conf"
printf '{"permissions":{"deny":["Bash(rm:*)"]}}\n' > "$HOME/.claude/settings.json"
cp "$HOME/.claude/settings.json" "$T_TMP/claude-settings.before"

# run ARGS...: cordon run in the project; sets $rc, $out (stdout) and $err (stderr).
run() {
        out=$(cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>"$T_TMP/err"); rc=$?
        err=$(cat "$T_TMP/err")
}

plan 23
run -- python3 -c "$TRY" 'open(p, "a").write("x")' "$HOME/.myagent/state"
check "the writable path is writable inside" "OK:1" "$out"
check "... and the write is on the host" "x" "$(cat "$HOME/.myagent/state" 2>&1)"
run -- python3 -c "$TRY" 'open(p).read()' "$HOME/.myagent.conf"
check "the readable path can be read" "OK:level=1" "$out"
run -- python3 -c "$TRY" 'open(p, "a")' "$HOME/.myagent.conf"
check "... and not written" "$(on_backend EROFS EACCES)" "$out"

run -- cat "$HOME/.myagent/RULES.md"
# The landlock backend (an explicit one) cannot show a merged copy: the user's file, as it is.
check "the instruction file shows merged with the note (the help line left out: not installed)" \
        "$(on_backend $'user rules\n\n## fixture note\nmyagent runs confined.' 'user rules')" "$out"
check "overlay.sh was not run" "absent" "$([ -e "$HOME/overlay-ran" ] && echo present || echo absent)"
check "one line says overlay.sh is not run" "1" "$(grep -c "myagent/overlay.sh is not run" <<<"$err")"
check_like "the login warning carries AGENT_LOGIN_HINT" \
        "*agent myagent will have to log in inside the sandbox (*): start myagent and sign in;*" "$err"
run --set SUPPRESS_AGENT_WARNINGS=myagent -- true
check "SUPPRESS_AGENT_WARNINGS=(myagent) silences both lines" "0" "$(grep -c "myagent" <<<"$err")"

out=$(cd "$T_PROJECT" && MYAGENT_TOKEN=tok-1 OTHER_TOKEN=tok-2 "$CORDON" run --quiet -- \
        sh -c 'echo "${MYAGENT_TOKEN:-none} ${OTHER_TOKEN:-none}"' 2>/dev/null)
check "its credential variable passes (another *_TOKEN does not)" "tok-1 none" "$out"
run -- sh -c 'echo "$GEMINI_CONFIG_DIR" "$GEMINI_CLI_HOME/.gemini" "${CLAUDE_CONFIG_DIR:+set}"'
read -r gcd expect claude <<<"$out"
check "GEMINI_CONFIG_DIR names the .gemini of GEMINI_CLI_HOME; CLAUDE_CONFIG_DIR is set" \
        "$expect set" "$gcd $claude"

SETTINGS='import json, os
d = json.load(open(os.environ["CLAUDE_CONFIG_DIR"] + "/settings.json"))
cmds = [h["command"] for g in d.get("hooks", {}).get("Stop", []) for h in g["hooks"]]
print("WebFetch" in d["permissions"]["allow"], "Bash" in d["permissions"]["allow"],
      d["permissions"]["deny"], cmds)'
run -- python3 -c "$SETTINGS"
check "claude's copy: the folder's allow rule and hook added, the user's deny rule kept" \
        "True True ['Bash(rm:*)'] ['echo fixture-hook']" "$out"
check "the host's ~/.claude/settings.json is unchanged" "same" \
        "$(cmp -s "$T_TMP/claude-settings.before" "$HOME/.claude/settings.json" && echo same || echo changed)"
run -- python3 -c "$TRY" 'open(p, "w")' "$HOME/.claude/new-file"
check "claude's folder does not make ~/.claude writable: the built-in profile keeps it read-only" \
        "$(on_backend EROFS EACCES)" "$out"
check "... nor ~/.claude.json a directory" "absent" \
        "$([ -d "$HOME/.claude.json" ] && echo directory || echo absent)"

# Refusals naming the file and line.
mkdir -p "$agents/broken" "$agents/outside"
printf '# broken\nAGENT_REQUIRED_WRITABLE_PATHS=("$HOME/.b"\n' > "$agents/broken/config.conf"
printf '# outside\n\nAGENT_REQUIRED_WRITABLE_PATHS=("/opt/outside")\n' > "$agents/outside/config.conf"
printf 'ENABLED_AGENTS=(broken)\n' > "$HOME/.config/cordon/sandbox.conf"
run -- true
check "a config.conf with a syntax error refuses" "125" "$rc"
check_like "... naming the file and line" "*$agents/broken/config.conf: line *syntax error*" "$err"
printf 'ENABLED_AGENTS=(outside)\n' > "$HOME/.config/cordon/sandbox.conf"
run -- true
check "a path outside \$HOME refuses" "125" "$rc"
check_like "... naming the file, line, variable and entry" \
        "*$agents/outside/config.conf:3: AGENT_REQUIRED_WRITABLE_PATHS entry '/opt/outside': not below \$HOME*" "$err"

# Agents that are not installed: a fresh home is exactly as it was after a run, in every mode.
fresh=$T_TMP/fresh-home proj=$T_TMP/fresh-project
mkdir -p "$fresh/.config/cordon" "$proj"
printf 'ENABLED_AGENTS=()\n' > "$fresh/.config/cordon/sandbox.conf"
fresh_run() { (cd "$proj" && HOME=$fresh PATH=/usr/bin:/bin "$CORDON" run --quiet "$@" -- true 2>&1); }
listing() { (cd "$fresh" && find . -printf '%p %s %m\n' | sort); }
if PATH=/usr/bin:/bin command -v claude codex gemini >/dev/null 2>&1; then
        for m in tmpwrite restricted read write; do
                skip "an agent is installed in /usr/bin or /bin" "HOME_ACCESS=$m: a fresh home stays as it was"
        done
else
        fresh_run >/dev/null # cordon's own first-run files (caches)
        printf 'ENABLED_AGENTS=(claude codex gemini)\n' > "$fresh/.config/cordon/sandbox.conf"
        before=$(listing)
        for m in tmpwrite restricted read write; do
                o=$(fresh_run --home-access "$m")
                after=$(listing)
                if [ "$after" = "$before" ]; then ok "HOME_ACCESS=$m: agents not installed leave the home as it was"
                else not_ok "HOME_ACCESS=$m: agents not installed leave the home as it was" "$o" \
                        "$(diff <(echo "$before") <(echo "$after"))"; fi
        done
fi
