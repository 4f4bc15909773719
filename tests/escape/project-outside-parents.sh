#!/usr/bin/env bash
# Attack: a project outside $HOME, /tmp and /var/tmp (here in /dev/shm), named directly, through
# a symlink planted in $HOME, or as the cwd; and system directories. Refused with exit 125.
# Control: --allow-parent for that parent makes the same project run.
. "$(dirname "$0")/../lib/tap.sh"

if ! outside=$(mktemp -d /dev/shm/cordon-esc.XXXXXX); then
        plan 1
        not_ok "cannot create a directory in /dev/shm"
        exit 0
fi
trap 'rm -rf "$outside"' EXIT
ln -s "$outside" "$HOME/shm-link"

# refused DESCRIPTION CWD [OPTIONS...]
refused() {
        local desc=$1 cwd=$2; shift 2
        local err rc
        err=$(cd "$cwd" && "$CORDON" run --quiet "$@" -- sh -c 'echo COMMAND-RAN' 2>&1); rc=$?
        case "$rc:$err" in
        *COMMAND-RAN*) not_ok "$desc" "rc=$rc" "output: $err" ;;
        "125:cordon: project directory '"*"' is not below an allowed parent"*) ok "$desc" ;;
        *) not_ok "$desc" "rc=$rc" "output: $err" ;;
        esac
}

plan 8
refused "--project-dir in /dev/shm: 125" "$T_PROJECT" --project-dir "$outside"
refused "--project-dir through a symlink in \$HOME to /dev/shm: 125" "$T_PROJECT" \
        --project-dir "$HOME/shm-link"
refused "working directory in /dev/shm: 125" "$outside"
refused "working directory is the symlink in \$HOME: 125" "$HOME/shm-link"
refused "--project-dir /etc: 125" "$T_PROJECT" --project-dir /etc
refused "--project-dir /usr/share: 125" "$T_PROJECT" --project-dir /usr/share
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --allow-parent /dev/shm --project-dir "$outside" -- \
        sh -c 'pwd && echo made > made-inside' 2>&1); rc=$?
check "control: with --allow-parent /dev/shm it runs in the project" "0:$outside" "$rc:$out"
check "control: ... and the project was writable" "made" "$(cat "$outside/made-inside" 2>&1)"
