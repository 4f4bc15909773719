#!/usr/bin/env bash
# A capability policy's sandbox_profile raises SANDBOX_PROFILE (the strictest wins), except over
# a profile given on the command line: --profile (or --set SANDBOX_PROFILE) below the policy's
# stands for that command, with one warning naming both profiles and where each came from; the
# banner and SANDBOX_PROFILE inside say the profile applied. A lower profile from sandbox.conf
# does not demote: the policy's wins, silently, as before. (An admin's SANDBOX_PROFILE is a
# floor under both: tests/escape/profile-admin-floor.sh.)
. "$(dirname "$0")/../lib/tap.sh"

plan 8
cd "$T_PROJECT" || exit 1
pol=$T_TMP/hardened.json
printf '{"sandbox_profile": "os_hardened", "workspace_roots": ["%s"]}\n' "$T_PROJECT" >"$pol"
low=$T_TMP/worktree.json
printf '{"sandbox_profile": "worktree", "workspace_roots": ["%s"]}\n' "$T_PROJECT" >"$low"

# run ARGS...: cordon run ARGS -- the profile the command sees; $inside, $banner (the banner's
# profile=), $warn (the warning lines), $rc.
run() {
        inside=$("$CORDON" run --net isolated "$@" -- sh -c 'echo "$SANDBOX_PROFILE"' 2>"$T_TMP/stderr")
        rc=$?
        banner=$(sed -n 's/^cordon: backend=[a-z]* profile=\([a-z_]*\) .*/\1/p' "$T_TMP/stderr")
        warn=$(grep '^cordon: warning: ' "$T_TMP/stderr" | grep -v 'AppArmor\|user namespaces')
}

if ! "$CORDON" run --quiet --net isolated --profile os_hardened -- true 2>/dev/null; then
        for i in $(seq 8); do skip "os_hardened cannot run here (a layer is missing)" "profile-demote $i"; done
        exit 0
fi

run --policy "$pol"
check "control: the policy's os_hardened wins over the default, silently" "0:os_hardened:os_hardened:" \
        "$rc:$banner:$inside:$warn"

run --policy "$pol" --profile worktree
check "--profile worktree below the policy's os_hardened: the banner and SANDBOX_PROFILE say worktree" \
        "0:worktree:worktree" "$rc:$banner:$inside"
check "... with one warning naming both profiles and their origins" \
        "cordon: warning: --profile worktree lowers the capability policy's profile os_hardened (from $pol: /sandbox_profile) for this command" \
        "$warn"

run --policy "$pol" --set SANDBOX_PROFILE=unrestricted
check "--set SANDBOX_PROFILE=unrestricted is the command line too" \
        "0:unrestricted:unrestricted:cordon: warning: --set SANDBOX_PROFILE=unrestricted lowers the capability policy's profile os_hardened (from $pol: /sandbox_profile) for this command" \
        "$rc:$banner:$inside:$warn"

# The flag given before --policy or after it: the same.
run --profile worktree --policy "$pol"
check "the order of --profile and --policy does not matter" "0:worktree:worktree" "$rc:$banner:$inside"

conf=$T_TMP/user.conf
echo 'SANDBOX_PROFILE=worktree' >"$conf"
inside=$(CORDON_CONF=$conf "$CORDON" run --net isolated --policy "$pol" -- sh -c 'echo "$SANDBOX_PROFILE"' 2>"$T_TMP/stderr")
check "sandbox.conf's SANDBOX_PROFILE=worktree does not lower the policy's os_hardened" \
        "os_hardened:" "$inside:$(grep '^cordon: warning: .*lowers' "$T_TMP/stderr")"

run --policy "$low" --profile os_hardened
check "--profile above the policy's: the stricter stands, no warning" "0:os_hardened:os_hardened:" \
        "$rc:$banner:$inside:$warn"

run --policy "$pol" --profile os_hardened
check "--profile equal to the policy's: no warning" "0:os_hardened:" "$rc:$banner:$warn"
