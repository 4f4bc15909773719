#!/usr/bin/env bash
# Attack: in a project without .git, make a repository (git init, or a .git of the sandbox's
# own with core.fsmonitor in its config) that the host's next git command in the project
# enters. Expected: the ns backend made an empty read-only .git directory first (silently;
# --dry-run lists it), which git passes over: git init and every file made in it fail with
# EROFS, removing it or renaming over it with EBUSY. Control: with PROTECT_GIT_CONFIG=false git
# init works (in another project).
. "$(dirname "$0")/../lib/tap.sh"
ns_only "the landlock backend cannot keep the stand-in; cordon(1) names the gap"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }
real=$(realpath "$T_PROJECT")

plan 8
check "the first start makes .git (silently)" "0:" "$(inside -- true; echo "$?:")"
out=$(inside -- git init -q; echo "rc=$?")
check "git init inside fails" \
        "fatal: cannot copy '/usr/share/git-core/templates/description' to '$real/.git/description': Read-only file system rc=128" \
        "$(echo $out)"
check "writing .git/config: EROFS" "EROFS" \
        "$(inside -- python3 -c "$TRY" 'open(p, "w").write("[core]\n\tfsmonitor = touch pwned\n")' .git/config)"
check "making .git/objects: EROFS" "EROFS" "$(inside -- python3 -c "$TRY" 'os.mkdir(p)' .git/objects)"
check "removing .git: EBUSY" "EBUSY" "$(inside -- python3 -c "$TRY" 'os.rmdir(p)' .git)"
check "renaming a directory over .git: EBUSY" "EBUSY" \
        "$(inside -- python3 -c "$TRY" 'os.mkdir("g") or os.rename("g", p)' .git)"
check "the host's .git is still the empty stand-in, which git passes over" \
        "0:fatal: not a git repository (or any of the parent directories): .git" \
        "$(ls -A "$T_PROJECT/.git" | wc -l):$(cd "$T_PROJECT" && GIT_CEILING_DIRECTORIES=$(dirname "$real") git status 2>&1)"
mkdir "$HOME/other"
out=$(cd "$HOME/other" && PROTECT_GIT_CONFIG=false "$CORDON" run --quiet -- git init -q 2>&1; echo "rc=$?")
check "control: with PROTECT_GIT_CONFIG=false git init works" "rc=0" "$(echo $out)"
