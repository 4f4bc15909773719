#!/usr/bin/env bash
# Attack: make the project a directory inside ~/.ssh (or ~/.aws, or via a symlink to it), so the
# project bind would expose the keys. Refused with exit 125. Control: a sibling under $HOME runs.
. "$(dirname "$0")/../lib/tap.sh"

mkdir -p "$HOME/.ssh/sub" "$HOME/.aws/sub" "$HOME/.gnupg"
chmod 700 "$HOME/.ssh" "$HOME/.aws"
echo "SSH-PRIVATE-KEY-pr0j1nssh" > "$HOME/.ssh/id_rsa"
ln -s .ssh "$HOME/keys-link"

# refused DESCRIPTION CWD [OPTIONS...]
refused() {
        local desc=$1 cwd=$2; shift 2
        local err rc
        err=$(cd "$cwd" && "$CORDON" run --quiet "$@" -- \
                sh -c 'cat id_rsa ../id_rsa; echo COMMAND-RAN' 2>&1); rc=$?
        case "$rc:$err" in
        *COMMAND-RAN* | *pr0j1nssh*) not_ok "$desc" "rc=$rc" "output: $err" ;;
        "125:cordon: project directory '"*"' lies inside blocked path"*) ok "$desc" ;;
        *) not_ok "$desc" "rc=$rc" "output: $err" ;;
        esac
}

plan 7
run_sandboxed true
check "control: a project next to ~/.ssh runs" "0:" "$rc:$out"
refused "--project-dir ~/.ssh: 125" "$T_PROJECT" --project-dir "$HOME/.ssh"
refused "--project-dir ~/.ssh/sub: 125" "$T_PROJECT" --project-dir "$HOME/.ssh/sub"
refused "working directory ~/.ssh: 125" "$HOME/.ssh"
refused "--project-dir ~/.aws/sub: 125" "$T_PROJECT" --project-dir "$HOME/.aws/sub"
refused "--project-dir through a symlink to ~/.ssh: 125" "$T_PROJECT" --project-dir "$HOME/keys-link"
refused "--project-dir ~/.ssh with --home-access write: 125" "$T_PROJECT" --home-access write \
        --project-dir "$HOME/.ssh"
