#!/usr/bin/env bash
# Attack: make the whole host, or the whole home, the writable project: --project-dir / or $HOME,
# spelled directly, with "..", through a symlink, or as the working directory. All exit 125.
# Control: a directory below $HOME is accepted.
. "$(dirname "$0")/../lib/tap.sh"

# refused DESCRIPTION CWD [OPTIONS...]: expects exit 125, an error naming the rule, no command run.
refused() {
        local desc=$1 cwd=$2; shift 2
        local err rc
        err=$(cd "$cwd" && "$CORDON" run --quiet "$@" -- sh -c 'echo COMMAND-RAN' 2>&1); rc=$?
        case "$rc:$err" in
        *COMMAND-RAN*) not_ok "$desc" "rc=$rc" "output: $err" ;;
        "125:cordon: project directory '/' is not allowed"*) ok "$desc" ;;
        "125:cordon: project directory '"*"' is the home directory"*) ok "$desc" ;;
        *) not_ok "$desc" "rc=$rc" "output: $err" ;;
        esac
}
ln -s "$HOME" "$T_TMP/home-link"

plan 8
run_sandboxed true
check "control: a project below \$HOME runs" "0:" "$rc:$out"
refused "--project-dir / : 125" "$T_PROJECT" --project-dir /
refused "--project-dir /tmp/.. : 125" "$T_PROJECT" --project-dir /tmp/..
refused "working directory / : 125" / 
refused "--project-dir \$HOME : 125" "$T_PROJECT" --project-dir "$HOME"
refused "--project-dir \$HOME/proj/.. : 125" "$T_PROJECT" --project-dir "$T_PROJECT/.."
refused "--project-dir through a symlink to \$HOME : 125" "$T_PROJECT" --project-dir "$T_TMP/home-link"
refused "working directory \$HOME : 125" "$HOME"
