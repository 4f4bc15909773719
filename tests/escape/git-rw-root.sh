#!/usr/bin/env bash
# Attack: a repository at the root of a writable path the user named (--rw), not the project:
# write core.fsmonitor into its .git/config or a hook into .git/hooks. Expected: it is kept like
# the project's under the ns backend (git config: EBUSY on the rename of config.lock; a hook:
# EROFS); the landlock backend refuses the start, naming PROTECT_GIT_CONFIG. Control: with
# PROTECT_GIT_CONFIG=false git config succeeds.
. "$(dirname "$0")/../lib/tap.sh"

mkdir "$HOME/other"
git init -q "$HOME/other"
other=$(realpath "$HOME/other")
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet --rw "$other" "$@" 2>&1); }

if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
        plan 2
        out=$(inside -- true); rc=$?
        check "landlock backend: the start is refused, naming PROTECT_GIT_CONFIG" "125:1" \
                "$rc:$(grep -c "^cordon: PROTECT_GIT_CONFIG cannot be enforced by the landlock backend" <<<"$out")"
        out=$(PROTECT_GIT_CONFIG=false inside -- git -C "$other" config core.fsmonitor 'touch pwned'; echo "rc=$?")
        check "control: with PROTECT_GIT_CONFIG=false git config succeeds" "rc=0" "$(echo $out)"
        exit 0
fi

plan 4
inside -- true >/dev/null # the first start makes the stand-ins, with a warning line
out=$(inside -- git -C "$other" config core.fsmonitor 'touch pwned'; echo "rc=$?")
check "git config core.fsmonitor in the --rw repository fails" \
        "error: could not write config file $other/.git/config: Device or resource busy rc=4" \
        "$(echo $out)"
check "writing a hook there: EROFS" "EROFS" \
        "$(inside -- python3 -c "$TRY" 'open(p, "w")' "$other/.git/hooks/pre-commit")"
check "the host's git reads no fsmonitor" "" "$(git -C "$other" config --get core.fsmonitor)"
out=$(PROTECT_GIT_CONFIG=false inside -- git -C "$other" config core.fsmonitor 'touch pwned'; echo "rc=$?")
check "control: with PROTECT_GIT_CONFIG=false git config succeeds" "rc=0" "$(echo $out)"
