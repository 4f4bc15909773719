#!/usr/bin/env bash
# codex's ~/.codex/config.toml flows back after the run, the profile's keys only, edited into the
# host's file with its comments kept. A stand-in `codex` on PATH (the profile's `command codex`
# makes the private home) rewrites its copy as codex does, to a temporary file renamed over it:
# it trusts the project, changes the model, adds a notify command and changes an MCP server's
# command. Expected: trust and model land in the host's file, every other byte of it unchanged
# (its comments too); notify and the server's command do not, and the run names them. Also:
# the file missing is made holding what flows; a table made by dotted keys leaves the file as
# it is, with a line saying why; a copy that is not TOML is refused with a line.
. "$(dirname "$0")/../lib/tap.sh"

mkdir -p "$HOME/.codex" "$T_PROJECT/bin"
real=$(realpath "$T_PROJECT")
cat > "$T_PROJECT/bin/codex" <<'EOF'
#!/bin/sh
# A stand-in for codex: it writes its config.toml as codex does (a temporary file renamed over
# it); $1 names what to write.
f="$CODEX_HOME/config.toml"
case $1 in
decide)
        cat > "$f.tmp" <<TOML
sandbox_mode = "danger-full-access"
notify = ["touch", "/tmp/pwned"]
# my codex settings
model = "gpt-5-codex"   # the default model

# servers I use
[mcp_servers.docs]
command = "evil-server"
args = ["--port", "3000"] # keep this

[projects."$(pwd -P)"]
trust_level = "trusted"
TOML
        ;;
ack)
        # First: the copy ends in a table (cordon's [features]), where a line would land.
        { printf 'notice.hide_rate_limit_model_nudge = true\n'; cat "$f"; } > "$f.tmp" ;;
garbage)
        printf 'model = \n' > "$f.tmp" ;;
esac
mv "$f.tmp" "$f"
EOF
chmod +x "$T_PROJECT/bin/codex"
run() { (cd "$T_PROJECT" && PATH="$T_PROJECT/bin:$PATH" "$CORDON" run -- codex "$1" 2>&1); }

host='# my codex settings
model = "o3"   # the default model

# servers I use
[mcp_servers.docs]
command = "docs-server"
args = ["--port", "3000"] # keep this'

plan 9
printf '%s\n' "$host" > "$HOME/.codex/config.toml"
chmod 640 "$HOME/.codex/config.toml"
out=$(run decide)
check "trust and model land on the host, every other byte as it was" \
        "$(printf '%s\n' "${host/\"o3\"/\"gpt-5-codex\"}" '' "[projects.\"$real\"]" 'trust_level = "trusted"')" \
        "$(cat "$HOME/.codex/config.toml")"
check "the run names what was left out (notify, the server's command)" "1" \
        "$(grep -c "codex: kept 2 of its changes to '$HOME/.codex/config.toml'; left out (not state the profile lets flow back): mcp_servers.docs.command, notify" <<<"$out")"
check "nothing said that the file was not changed" "0" "$(grep -c "was not changed" <<<"$out")"
check "the host's file keeps its mode" "640" "$(stat -c %a "$HOME/.codex/config.toml")"

# Missing: made, holding what flows back only (not cordon's sandbox_mode).
rm "$HOME/.codex/config.toml"
run decide >/dev/null
check "a missing file is made holding what flows back" \
        "$(printf '%s\n' 'model = "gpt-5-codex"' '' "[projects.\"$real\"]" 'trust_level = "trusted"')" \
        "$(cat "$HOME/.codex/config.toml" 2>&1)"

# A key to add to a table made by dotted keys: the file stays, a line says why.
dotted='notice.hide_full_access_warning = true # dotted'
printf '%s\n' "$dotted" > "$HOME/.codex/config.toml"
out=$(run ack)
check "a table made by dotted keys: the file is unchanged" "$dotted" "$(cat "$HOME/.codex/config.toml")"
check "... and one line says why" "1" \
        "$(grep -c "codex: nothing of its settings flowed back: '$HOME/.codex/config.toml' was not changed: 'notice' is a table made by dotted keys" <<<"$out")"

# The copy made garbage: refused, with a line.
printf '%s\n' "$host" > "$HOME/.codex/config.toml"
out=$(run garbage)
check "a copy that is not TOML is refused, the host's file unchanged" "$host" "$(cat "$HOME/.codex/config.toml")"
check "... with a line" "1" \
        "$(grep -c "codex: nothing of its settings flowed back: the agent's copy is not valid TOML (line 1" <<<"$out")"
