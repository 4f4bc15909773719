#!/usr/bin/env bash
# Attack: in a project without .git, make a repository (git init, or a .git of the sandbox's
# own with core.fsmonitor in its config) that the host's next git command in the project
# enters. Expected: the ns backend made an empty read-only .git file first, which git refuses
# ("invalid gitfile format"): writing it fails with EROFS, removing or renaming over it with
# EBUSY. It is made silently (--dry-run lists it). Control: with PROTECT_GIT_CONFIG=false git init works (in another project).
. "$(dirname "$0")/../lib/tap.sh"
ns_only "the landlock backend cannot keep the stand-in; cordon(1) names the gap"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }
real=$(realpath "$T_PROJECT")

plan 7
check "the first start makes .git (silently)" "0:" "$(inside -- true; echo "$?:")"
out=$(inside -- git init -q; echo "rc=$?")
check "git init inside fails clearly" "fatal: invalid gitfile format: $real/.git rc=128" "$(echo $out)"
check "writing .git: EROFS" "EROFS" \
        "$(inside -- python3 -c "$TRY" 'open(p, "w").write("gitdir: evil\n")' .git)"
check "removing .git: EBUSY" "EBUSY" "$(inside -- python3 -c "$TRY" 'os.unlink(p)' .git)"
check "renaming a file over .git: EBUSY" "EBUSY" \
        "$(inside -- python3 -c "$TRY" 'open("g", "w").write("gitdir: evil\n") and os.rename("g", p)' .git)"
check "the host's .git is still the empty stand-in" "0" "$(stat -c %s "$T_PROJECT/.git")"
mkdir "$HOME/other"
out=$(cd "$HOME/other" && PROTECT_GIT_CONFIG=false "$CORDON" run --quiet -- git init -q 2>&1; echo "rc=$?")
check "control: with PROTECT_GIT_CONFIG=false git init works" "rc=0" "$(echo $out)"
