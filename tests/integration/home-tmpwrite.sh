#!/usr/bin/env bash
# Must still work: the default home (tmpwrite) is an empty writable tmpfs: writes there vanish
# after exit, dotfiles are read-only, agent state (.claude/projects) persists, ~/.cache/uv is not
# writable, and .gitconfig is a writable copy whose changes do not reach the host.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "the throwaway home is a tmpfs: it needs a mount namespace"

echo "alias ll='ls -l'" > "$HOME/.bashrc"
printf '[user]\n\tname = Host User\n' > "$HOME/.gitconfig"
echo "host-only" > "$HOME/host-file"

plan 10
run_sandboxed sh -c 'echo scratch > ~/note.txt && mkdir -p ~/.local/state && cat ~/note.txt'
check "writing the home inside works" "0:scratch" "$rc:$out"
check "... and the file does not exist on the host" "absent" \
        "$([ -e "$HOME/note.txt" ] && echo present || echo absent)"
run_sandboxed sh -c 'cat ~/note.txt'
check "... nor in the next sandbox" "1:cat: $HOME/note.txt: No such file or directory" "$rc:$out"
run_sandboxed sh -c 'cat ~/host-file'
check "other host files of the home are not visible" \
        "1:cat: $HOME/host-file: No such file or directory" "$rc:$out"
run_sandboxed cat "$HOME/.bashrc"
check "~/.bashrc is visible" "0:alias ll='ls -l'" "$rc:$out"
run_sandboxed sh -c 'echo x >> ~/.bashrc'
case "$rc:$out" in
[12]:*"Read-only file system"*) ok "~/.bashrc is read-only" ;;
*) not_ok "~/.bashrc is read-only" "rc=$rc" "output: $out" ;;
esac
run_sandboxed git config --global user.name
check "git reads the seeded ~/.gitconfig" "0:Host User" "$rc:$out"
run_sandboxed sh -c 'git config --global user.name "Inside" && git config --global user.name'
check "the seeded ~/.gitconfig is writable inside" "0:Inside" "$rc:$out"
check "... and the host ~/.gitconfig is unchanged" "Host User" \
        "$(git config --file "$HOME/.gitconfig" user.name)"
mkdir -p "$HOME/.claude" # claude is installed: its state is made and bound
run_sandboxed sh -c 'echo kept > ~/.claude/projects/state && mkdir -p ~/.cache/uv && echo gone > ~/.cache/uv/entry'
check "claude's state persists on the host, ~/.cache/uv's writes do not (not writable by default)" \
        "0:kept absent" \
        "$rc:$out$(cat "$HOME/.claude/projects/state") $([ -e "$HOME/.cache/uv/entry" ] && echo present || echo absent)"
