#!/usr/bin/env bash
# Attack: leave code for the host's next git command in the project's repository: a
# core.fsmonitor command in .git/config, a hook in .git/hooks, or a whole new .git put in place
# of the old one. Expected: .git/config and .git/hooks are read-only mounts (EBUSY for git's
# rename of config.lock, EROFS for a hook) and .git cannot be renamed (EBUSY). Control: with
# --git-writable the same writes succeed.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "read-only files inside the writable project need a mount namespace"

git -C "$T_PROJECT" init -q
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }
inside -- true >/dev/null # the first start makes the stand-ins, with a warning line

plan 8
out=$(inside -- git config core.fsmonitor 'touch /tmp/pwned'; echo "rc=$?")
check "git config core.fsmonitor inside fails" \
        "error: could not write config file $(realpath "$T_PROJECT")/.git/config: Device or resource busy rc=4" \
        "$(echo $out)"
check "the host's .git/config has no fsmonitor" "" \
        "$(git -C "$T_PROJECT" config --get core.fsmonitor)"
check "writing .git/hooks/pre-commit: EROFS" "EROFS" \
        "$(inside -- python3 -c "$TRY" 'open(p, "w")' .git/hooks/pre-commit)"
check "renaming .git: EBUSY" "EBUSY" "$(inside -- python3 -c "$TRY" 'os.rename(p, ".git.old")' .git)"
check "renaming .git/hooks: EBUSY" "EBUSY" \
        "$(inside -- python3 -c "$TRY" 'os.rename(p, ".git/h")' .git/hooks)"

out=$(inside --git-writable -- git config core.fsmonitor 'touch /tmp/pwned'; echo "rc=$?")
check "control: with --git-writable git config succeeds" "rc=0" "$(echo $out)"
check "control: with --git-writable a hook can be written" "OK:None" \
        "$(inside --git-writable -- python3 -c "$TRY" 'open(p, "w").close()' .git/hooks/pre-commit)"
check "control: PROTECT_GIT_CONFIG=false does the same" "OK:None" \
        "$(PROTECT_GIT_CONFIG=false inside -- python3 -c "$TRY" 'open(p, "w").close()' .git/hooks/post-commit)"
