#!/usr/bin/env bash
# What the command is told of its sandbox: SANDBOX_PROFILE, SANDBOX_BACKEND and
# SANDBOX_NETWORK_MODE name what the launch delivered, the same words as the banner's
# profile=, backend= and network=. The caller's own values are replaced, SANDBOX_ENV (--setenv)
# cannot forge them and no environment rule (BLOCKED_ENV_VARS, a pattern) can remove them.
# Control: the caller's values reach the command when they are other names (the same
# environment path carries them), so a test that passed only because the caller's variables
# were dropped would fail there.
. "$(dirname "$0")/../lib/tap.sh"

plan 9
cd "$T_PROJECT" || exit 1

# run ARGS...: stdout of `env` in the sandbox in $env, the banner line in $banner, status $rc.
run() {
        env=$("$@" 2>"$T_TMP/stderr"); rc=$?
        banner=$(grep -m1 '^cordon: backend=' "$T_TMP/stderr")
}
# var NAME: its value in $env ("" when unset), one line.
var() { printf '%s\n' "$env" | sed -n "s/^$1=//p" | head -1; }
# word NAME: NAME= of the banner.
word() { printf '%s\n' "$banner" | sed -n "s/.* $1=\([a-z_]*\).*/\1/p"; }

run "$CORDON" run -- env
check "the default run: SANDBOX_PROFILE, SANDBOX_BACKEND and SANDBOX_NETWORK_MODE are the banner's" \
        "0:$(word profile):$(word backend):$(word network)" \
        "$rc:$(var SANDBOX_PROFILE):$(var SANDBOX_BACKEND):$(var SANDBOX_NETWORK_MODE)"
check "... and the profile is the default's" worktree "$(var SANDBOX_PROFILE)"

run env SANDBOX_PROFILE=forged SANDBOX_NETWORK_MODE=forged CORDON_FACTS_CONTROL=kept \
        "$CORDON" run -- env
check "control: the caller's own variable of another name reaches the command" kept \
        "$(var CORDON_FACTS_CONTROL)"
check "the caller's SANDBOX_PROFILE and SANDBOX_NETWORK_MODE are replaced" \
        "worktree:$(word network)" "$(var SANDBOX_PROFILE):$(var SANDBOX_NETWORK_MODE)"

run "$CORDON" run --setenv SANDBOX_PROFILE=unrestricted --setenv SANDBOX_NETWORK_MODE=open \
        --setenv SANDBOX_BACKEND=bwrap --setenv CORDON_FACTS_CONTROL=set -- env
check "control: --setenv of another name is set" set "$(var CORDON_FACTS_CONTROL)"
check "--setenv cannot forge them" "worktree:$(word backend):$(word network)" \
        "$(var SANDBOX_PROFILE):$(var SANDBOX_BACKEND):$(var SANDBOX_NETWORK_MODE)"

run env SANDBOX_PROFILE=forged "$CORDON" run --set BLOCKED_ENV_VARS=SANDBOX_PROFILE \
        --set 'BLOCKED_ENV_PATTERNS=SANDBOX_*' -- env
check "no environment rule removes them" "0:worktree:$(word network)" \
        "$rc:$(var SANDBOX_PROFILE):$(var SANDBOX_NETWORK_MODE)"

run "$CORDON" run --profile unrestricted -- env
check "--profile unrestricted: the banner and SANDBOX_PROFILE say unrestricted" \
        "0:unrestricted:unrestricted" "$rc:$(word profile):$(var SANDBOX_PROFILE)"

run "$CORDON" run --net isolated -- env
check "--net isolated: SANDBOX_NETWORK_MODE=isolated" "0:isolated:isolated" \
        "$rc:$(word network):$(var SANDBOX_NETWORK_MODE)"
