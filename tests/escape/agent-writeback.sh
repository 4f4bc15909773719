#!/usr/bin/env bash
# Attack: what flows back from an agent's private copy after the run is hostile input. From
# inside, under both backends: make claude's copy of ~/.claude.json a link to a secret (hoping
# the write-back reads it into the host file), a FIFO (to hang cordon), a file too large; set
# the keys that make the host run something (mcpServers, a project's allowedTools) and trust
# for a project elsewhere; and point the host's ~/.claude.json at another file first.
# Expected: a copy that is a link, a FIFO or too large is refused with a line (nothing merged,
# no hang); command keys and other projects never reach the host file; a host file that is a
# link is left alone. Controls: the allowed keys (trust for this project, onboarding) flow
# back, and two sandboxes run at once both keep their keys (the merge locks and re-reads).
. "$(dirname "$0")/../lib/tap.sh"

mkdir -p "$HOME/.claude" "$HOME/.ssh"
echo "SECRET-KEY" > "$HOME/.ssh/id_test"
real=$(realpath "$T_PROJECT")
run() { (cd "$T_PROJECT" && "$CORDON" run --backend "$backend" -- sh -c "$1" 2>&1); }
host_json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$HOME/.claude.json" "$1" 2>&1; }

plan 22
for backend in ns landlock; do
        echo '{"numStartups": 1}' > "$HOME/.claude.json"
        out=$(run 'rm "$CLAUDE_CONFIG_DIR/.claude.json" && ln -s "$HOME/.ssh/id_test" "$CLAUDE_CONFIG_DIR/.claude.json"')
        check "$backend: a copy replaced by a link is refused, with a line" "1" \
                "$(grep -c "claude: nothing of its settings flowed back: the agent's copy cannot be read" <<<"$out")"
        check "$backend: the host file is unchanged (no secret in it)" '{"numStartups": 1}' "$(cat "$HOME/.claude.json")"
        out=$(timeout 20 sh -c 'cd "$1" && "$2" run --backend "$3" -- sh -c "rm \"\$CLAUDE_CONFIG_DIR/.claude.json\"; mkfifo \"\$CLAUDE_CONFIG_DIR/.claude.json\"" 2>&1' sh "$T_PROJECT" "$CORDON" "$backend"; echo "rc=$?")
        check "$backend: a FIFO in its place is refused without a hang" "1:rc=0" \
                "$(grep -c "cannot be read" <<<"$out"):$(tail -1 <<<"$out")"
        out=$(run 'head -c 17000000 /dev/zero | tr "\0" " " > "$CLAUDE_CONFIG_DIR/big" && printf "{}" >> "$CLAUDE_CONFIG_DIR/big" && mv "$CLAUDE_CONFIG_DIR/big" "$CLAUDE_CONFIG_DIR/.claude.json"')
        check "$backend: a copy too large is refused" "1" "$(grep -c "cannot be read (File too large)" <<<"$out")"
        out=$(run "python3 -c '
import json, os, sys
p = os.environ[\"CLAUDE_CONFIG_DIR\"] + \"/.claude.json\"
d = json.load(open(p))
d[\"mcpServers\"] = {\"x\": {\"command\": \"touch /tmp/pwned\"}}
d[\"hasCompletedOnboarding\"] = True
d[\"projects\"] = {sys.argv[1]: {\"hasTrustDialogAccepted\": True, \"allowedTools\": [\"Bash(*)\"]},
                 \"/elsewhere\": {\"hasTrustDialogAccepted\": True}}
open(p + \".tmp\", \"w\").write(json.dumps(d)); os.rename(p + \".tmp\", p)' '$real'")
        check "$backend: no command key reaches the host" "False:False" \
                "$(host_json "'mcpServers' in d"):$(host_json "'allowedTools' in d['projects']['$real']")"
        check "$backend: no trust for another project" "False" "$(host_json "'/elsewhere' in d['projects']")"
        check "$backend: the dropped keys are named" "1" \
                "$(grep -c "left out (not state the profile lets flow back): mcpServers.x.command, projects.$real.allowedTools, projects./elsewhere.hasTrustDialogAccepted" <<<"$out")"
        check "$backend control: trust for this project and onboarding flow back" "True:True:1" \
                "$(host_json "d['projects']['$real']['hasTrustDialogAccepted']"):$(host_json "d['hasCompletedOnboarding']"):$(host_json "d['numStartups']")"

        # Two sandboxes at once, each changing a key of its own.
        echo '{}' > "$HOME/.claude.json"
        set_key() { run "sleep $2; python3 -c '
import json, os
p = os.environ[\"CLAUDE_CONFIG_DIR\"] + \"/.claude.json\"
d = json.load(open(p)); d[\"$1\"] = \"$1\"
open(p + \".tmp\", \"w\").write(json.dumps(d)); os.rename(p + \".tmp\", p)'" >/dev/null; }
        set_key theme 1 & a=$!
        set_key lastReleaseNotesSeen 0 & b=$!
        wait $a $b
        check "$backend control: concurrent sandboxes keep each other's keys" "theme:lastReleaseNotesSeen" \
                "$(host_json "d.get('theme')"):$(host_json "d.get('lastReleaseNotesSeen')")"

        # Anything that can read the host's file can lock it (a sandbox that shows the home
        # read-only): the end of this one is not held up by it.
        # (The lock is held by the process killed below, not by a child of it: a 'sleep'
        # left behind would hold this file's output open for its minute.)
        (exec 9<"$HOME/.claude.json" && flock 9 && exec sleep 60) & holder=$!
        sleep 0.3
        out=$(timeout 30 sh -c 'cd "$1" && "$2" run --backend "$3" -- sh -c "echo \"{\\\"theme\\\": \\\"held\\\"}\" > \"\$CLAUDE_CONFIG_DIR/.claude.json\"" 2>&1' sh "$T_PROJECT" "$CORDON" "$backend"; echo "rc=$?")
        kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
        check "$backend: a lock held on the host file does not hold up the end" "1:rc=0" \
                "$(grep -c "another process holds a lock on it" <<<"$out"):$(tail -1 <<<"$out")"

        # The host's file is a link (a dotfiles checkout, or planted): left alone.
        echo '{}' > "$HOME/dotfile.json"
        rm "$HOME/.claude.json" && ln -s "$HOME/dotfile.json" "$HOME/.claude.json"
        out=$(run 'echo "{\"theme\": \"x\"}" > "$CLAUDE_CONFIG_DIR/.claude.json"')
        check "$backend: a host file that is a link is not written through" "{}:1" \
                "$(cat "$HOME/dotfile.json"):$(grep -c "is a symbolic link" <<<"$out")"
        rm "$HOME/.claude.json"
done
