#!/usr/bin/env bash
# An admin's SANDBOX_PROFILE is a floor: --profile unrestricted (no Landlock, no seccomp deny
# list) cannot take the command below it, neither alone nor as the command line's demotion of a
# capability policy's profile (which it may make without an admin). The attack: keyctl(2),
# which the seccomp deny list answers EPERM and the kernel EOPNOTSUPP for these arguments.
# Control: without the baseline the same command lines do demote (EOPNOTSUPP, the banner and
# SANDBOX_PROFILE say unrestricted). With it: the admin's value back with the usual warning,
# EPERM, and os_hardened in the banner and inside. Both backends where the landlock one runs.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/config.sh"

plan 12
cd "$T_PROJECT" || exit 1
if [ -e /etc/cordon/sandbox.conf ]; then
        for i in $(seq 12); do skip "this host has an admin baseline" "profile-admin-floor $i"; done
        exit 0
fi
cfg_reset
cp "$SYSPROBE" "$T_PROJECT/sysprobe"
pol=$T_TMP/hardened.json
printf '{"sandbox_profile": "os_hardened", "workspace_roots": ["%s"]}\n' "$T_PROJECT" >"$pol"

# probe BACKEND ARGS...: "ERRNO:PROFILE-IN-BANNER:SANDBOX_PROFILE" of keyctl inside; its
# warning lines then in warnings.
probe() {
        local b=$1 out
        shift
        out=$("$CORDON" run --net isolated --backend "$b" "$@" -- \
                sh -c './sysprobe keyctl; echo "$SANDBOX_PROFILE"' 2>"$T_TMP/stderr")
        printf '%s:%s:%s' "$(printf '%s\n' "$out" | sed -n 1p)" \
                "$(sed -n 's/^cordon: backend=[a-z]* profile=\([a-z_]*\) .*/\1/p' "$T_TMP/stderr")" \
                "$(printf '%s\n' "$out" | sed -n 2p)"
}

warnings() { grep '^cordon: warning: ' "$T_TMP/stderr"; }

admin=$(admin_fixture admin-profile)
for b in ns landlock; do
        if ! "$CORDON" run --quiet --net isolated --backend "$b" --profile os_hardened -- true 2>/dev/null; then
                for i in $(seq 6); do skip "os_hardened cannot run here under the $b backend" "$b: profile floor $i"; done
                continue
        fi
        unset CORDON_ADMIN_CONF
        check "$b, control: without an admin --profile unrestricted reaches the kernel" \
                "EOPNOTSUPP:unrestricted:unrestricted" "$(probe "$b" --profile unrestricted)"
        check "$b, control: without an admin it demotes the policy's os_hardened too" \
                "EOPNOTSUPP:unrestricted:unrestricted" "$(probe "$b" --policy "$pol" --profile unrestricted)"
        if [ -z "$admin" ]; then
                for i in $(seq 4); do skip "fixtures not owned by root (run the suite as root)" "$b: admin floor $i"; done
                continue
        fi
        export CORDON_ADMIN_CONF=$admin
        restored="cordon: warning: weakened admin-enforced SANDBOX_PROFILE=os_hardened (from $admin:3) to unrestricted (from --profile): restored"
        check "$b: --profile unrestricted under the admin's os_hardened is refused by seccomp (EPERM)" \
                "EPERM:os_hardened:os_hardened" "$(probe "$b" --profile unrestricted)"
        check "$b: ... and the restoration is a warning naming both" "$restored" "$(warnings)"
        check "$b: --profile unrestricted demoting the policy's os_hardened: still EPERM" \
                "EPERM:os_hardened:os_hardened" "$(probe "$b" --policy "$pol" --profile unrestricted)"
        check "$b: ... the demotion, then the admin's restoration, one line each" \
                "cordon: warning: --profile unrestricted lowers the capability policy's profile os_hardened (from $pol: /sandbox_profile) for this command
$restored" "$(warnings)"
done
