#!/usr/bin/env bash
# Attack: the project's .git is a file naming the real git directory elsewhere (a separate git
# dir, as linked worktrees and submodules have) in a writable path: write core.fsmonitor into
# that directory's config, or rewrite the .git file to name a git directory of the sandbox's
# own. Expected: the directory it names is kept like .git itself (git config fails: EBUSY on
# the rename of config.lock) and the .git file is read-only (EROFS) under the ns backend; the
# landlock backend refuses the start, naming PROTECT_GIT_CONFIG. Control: with
# PROTECT_GIT_CONFIG=false git config succeeds.
. "$(dirname "$0")/../lib/tap.sh"

mkdir "$HOME/store"
git init -q --separate-git-dir "$HOME/store/proj.git" "$T_PROJECT"
store=$(realpath "$HOME/store")
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet --rw "$store" "$@" 2>&1); }

if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
        plan 2
        out=$(inside -- true); rc=$?
        check "landlock backend: the start is refused, naming PROTECT_GIT_CONFIG" "125:1" \
                "$rc:$(grep -c "^cordon: PROTECT_GIT_CONFIG cannot be enforced by the landlock backend" <<<"$out")"
        out=$(PROTECT_GIT_CONFIG=false inside -- git config core.fsmonitor 'touch pwned'; echo "rc=$?")
        check "control: with PROTECT_GIT_CONFIG=false git config succeeds" "rc=0" "$(echo $out)"
        exit 0
fi

plan 5
inside -- true >/dev/null # the first start makes the stand-ins, with a warning line
out=$(inside -- git config core.fsmonitor 'touch pwned'; echo "rc=$?")
check "git config core.fsmonitor in the git directory the .git file names fails" \
        "error: could not write config file $store/proj.git/config: Device or resource busy rc=4" \
        "$(echo $out)"
check "writing a hook there: EROFS" "EROFS" \
        "$(inside -- python3 -c "$TRY" 'open(p, "w")' "$store/proj.git/hooks/pre-commit")"
check "rewriting the .git file: EROFS" "EROFS" \
        "$(inside -- python3 -c "$TRY" 'open(p, "w").write("gitdir: evil\n")' .git)"
check "the host's git reads no fsmonitor" "" "$(git -C "$T_PROJECT" config --get core.fsmonitor)"
out=$(PROTECT_GIT_CONFIG=false inside -- git config core.fsmonitor 'touch pwned'; echo "rc=$?")
check "control: with PROTECT_GIT_CONFIG=false git config succeeds" "rc=0" "$(echo $out)"
