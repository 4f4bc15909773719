#!/usr/bin/env bash
# Attack: write where cordon reads its configuration and agent-sandbox's agent folders
# (~/.config/cordon, ~/.config/agent-sandbox: bash the next start runs, settings merged into an
# agent's) from a sandbox that was given a writable path inside them: a project of
# ~/.config/cordon/conf.d or of an agent folder, an --rw of ~/.config/agent-sandbox/agents. A
# read-only bind of the directory cannot cover a writable bind below it. Expected: the start is
# refused (125, naming the directory) and nothing lands on the host; the folder's files stay
# read-only where the sandbox is given ~/.config or a writable home (EROFS under the ns backend,
# EACCES under the landlock one). Controls: a project elsewhere in ~/.config is writable, and the
# same write outside a sandbox succeeds.
. "$(dirname "$0")/../lib/tap.sh"

cfg=$HOME/.config
folder=$cfg/agent-sandbox/agents/claude
mkdir -p "$cfg/cordon/conf.d" "$folder" "$cfg/tool"
printf '{"permissions":{"allow":["Read"]}}\n' > "$folder/settings.json"
cp "$folder/settings.json" "$T_TMP/settings.before"
run() { # run DIR ARGS...: cordon run in DIR; sets $rc and $out (stdout and stderr)
        local dir=$1; shift
        out=$(cd "$dir" && "$CORDON" run --quiet --net isolated "$@" 2>&1); rc=$?
}

plan 18
sh -c "echo probe > '$folder/probe'" && [ -e "$folder/probe" ] && ok "control: outside a sandbox the folder is writable" ||
        not_ok "control: outside a sandbox the folder is writable"
rm -f "$folder/probe"
for b in ns landlock; do
        run "$cfg/cordon/conf.d" --backend "$b" -- sh -c 'echo HOME_ACCESS=write > evil.conf'
        check "$b: a project of ~/.config/cordon/conf.d is refused" "125" "$rc"
        check_like "$b: ... naming the configuration directory" "*is writable inside '$cfg/cordon'*" "$out"
        run "$folder" --backend "$b" -- sh -c 'echo "{}" > settings.json; echo x > config.conf'
        check "$b: a project of an agent folder is refused" "125" "$rc"
        check_like "$b: ... naming agent-sandbox's directory" "*is writable inside '$cfg/agent-sandbox'*" "$out"
        run "$T_PROJECT" --backend "$b" --rw "$cfg/agent-sandbox/agents" -- true
        check "$b: --rw of ~/.config/agent-sandbox/agents is refused" "125" "$rc"
        for how in "--rw $cfg" "--home-access write"; do
                # shellcheck disable=SC2086 # two words on purpose
                run "$T_PROJECT" --backend "$b" $how -- python3 -c "$TRY" \
                        'open(p, "w").write("{}")' "$folder/settings.json"
                check "$b, $how: the agent folder's settings.json cannot be written" \
                        "$([ "$b" = ns ] && echo EROFS || echo EACCES)" "$out"
        done
done
check "nothing was planted in conf.d" "absent" \
        "$([ -e "$cfg/cordon/conf.d/evil.conf" ] && echo present || echo absent)"
check "the agent folder is unchanged" "same:absent" \
        "$(cmp -s "$T_TMP/settings.before" "$folder/settings.json" && echo same || echo changed):$([ -e "$folder/config.conf" ] && echo present || echo absent)"
mkdir -p "$cfg/tool/work"
run "$cfg/tool/work" -- sh -c 'echo ok > written'
check "control: a project elsewhere in ~/.config is writable" "0:ok" "$rc:$(cat "$cfg/tool/work/written" 2>&1)"
