#!/usr/bin/env bash
# `cordon doctor` and AppArmor's restriction of user namespaces (Ubuntu 23.10+): with the facts
# read from a stand-in for / (CORDON_DOCTOR_APPARMOR_ROOT, read only by the doctor), the line
# says whether the restriction is on and, where it applies to cordon, prints the one command
# that installs and loads cordon's profile, with the installed copy's path the build chose.
# Off, or with a profile attached, or AppArmor inactive: no command. --json carries the same.
# shellcheck disable=SC1091 # staged by run-tap.sh
. "$T_SRC/tests/lib/tap.sh"

# As root the restriction does not apply (root is exempt): that is checked as such, and the
# checks for an unprivileged caller run as nobody.
unpriv=()
if [ "$(id -u)" = 0 ]; then
        plan 11
        unpriv=(setpriv --reuid=65534 --regid=65534 --clear-groups)
else
        plan 10
fi
root=$T_TMP/aa-root
mkdir -p "$root/proc/sys/kernel" "$root/sys/module/apparmor/parameters" \
        "$root/proc/self/attr/apparmor"
# state RESTRICT LABEL [ENABLED]: the stand-in's sysctl, the caller's label and the module flag
state() {
        echo "$1" >"$root/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
        echo "$2" >"$root/proc/self/attr/apparmor/current"
        echo "${3:-Y}" >"$root/sys/module/apparmor/parameters/enabled"
}
# --backend ns: AppArmor matters to the ns backend's user namespaces, whose section names it.
doctor() { CORDON_DOCTOR_APPARMOR_ROOT=$root "${unpriv[@]}" "$CORDON" doctor --backend ns "$@" 2>/dev/null; }
# line TEXT LABEL: the line of the ns backend's section; "apparmor fix": the fix of the AppArmor
# problem, as "apparmor fix: COMMAND".
line() {
        if [ "$2" = "apparmor fix" ]; then
                printf '%s\n' "$1" | sed -n 's/^problem: AppArmor restricts user namespaces .*; fix: /apparmor fix: /p' | head -1
        else
                printf '%s\n' "$1" | sed -n "s/^  \($2\): /\1: /p" | head -1
        fi
}

# Where the build put the profile's copy and the AppArmor directory: from --json, checked
# against the fix command below.
read -r profile aadir < <(doctor --json | python3 -c 'import json, sys
a = json.load(sys.stdin)["apparmor"]
print(a["profile"], a["profile_dir"])')
case $profile in
/*/cordon/apparmor/cordon) ok "--json: the profile's copy is DATADIR/cordon/apparmor/cordon ($profile)" ;;
*) not_ok "--json: the profile's copy is DATADIR/cordon/apparmor/cordon" "$profile" ;;
esac
mkdir -p "$root${profile%/*}" && cp /dev/null "$root$profile"

state 1 unconfined
out=$(doctor)
fix=$(line "$out" "apparmor fix")
if [ "$(id -u)" = 0 ]; then
        as_root=$(CORDON_DOCTOR_APPARMOR_ROOT=$root "$CORDON" doctor --backend ns 2>/dev/null)
        check "restricted, as root: exempt, no command" \
                "apparmor: restricts user namespaces (kernel.apparmor_restrict_unprivileged_userns=1; root is exempt)|" \
                "$(line "$as_root" apparmor)|$(line "$as_root" "apparmor fix")"
fi
case $(line "$out" apparmor) in
"apparmor: restricts user namespaces (kernel.apparmor_restrict_unprivileged_userns=1 and no profile grants them to cordon"*)
        ok "restricted, unconfined: the line names the sysctl and the missing profile" ;;
*) not_ok "restricted, unconfined: the line names the sysctl and the missing profile" "$out" ;;
esac
want="apparmor fix: sudo install -m 0644 $profile $aadir/cordon && sudo apparmor_parser -r $aadir/cordon"
check "restricted, unconfined: the one command that installs and loads the profile" "$want" "$fix"
rm "$root$profile"
case $(line "$(doctor)" "apparmor fix") in
"apparmor fix: none from here: $profile is missing;"*)
        ok "restricted, profile copy missing: says so instead of a command that fails" ;;
*) not_ok "restricted, profile copy missing: says so instead of a command that fails" "$(doctor | head -3)" ;;
esac
cp /dev/null "$root$profile"
got=$(doctor --json | python3 -c 'import json, sys
a = json.load(sys.stdin)["apparmor"]
print(a["restricts_user_namespaces"], a["kernel.apparmor_restrict_unprivileged_userns"], a["fix"], sep="|")')
check "--json: restricts_user_namespaces and fix as in the text" "True|1|${want#apparmor fix: }" "$got"

state 0 unconfined
out=$(doctor)
check "sysctl 0: unrestricted, no command" "apparmor: active, user namespaces unrestricted|" \
        "$(line "$out" apparmor)|$(line "$out" "apparmor fix")"

state 1 "cordon (unconfined)"
out=$(doctor)
check "restricted, cordon's profile attached: no command" \
        "apparmor: restricts user namespaces (kernel.apparmor_restrict_unprivileged_userns=1; cordon runs under the profile 'cordon (unconfined)')|" \
        "$(line "$out" apparmor)|$(line "$out" "apparmor fix")"

rm -rf "$root/proc" && state_dir=$root/sys/module/apparmor/parameters && echo N >"$state_dir/enabled"
out=$(doctor)
check "AppArmor inactive: no line, no command" "|" \
        "$(line "$out" apparmor)|$(line "$out" "apparmor fix")"
json=$(doctor --json | python3 -c 'import json, sys
a = json.load(sys.stdin)["apparmor"]
print(a["enabled"], a["restricts_user_namespaces"], a["fix"], sep="|")')
check "--json: AppArmor inactive" "False|False|None" "$json"

# This host as it is (no stand-in): the line agrees with the sysctl.
real=$("$CORDON" doctor --backend ns 2>/dev/null | sed -n 's/^  apparmor: /apparmor: /p')
if [ "$(cat /proc/sys/kernel/apparmor_restrict_unprivileged_userns 2>/dev/null)" = 1 ]; then
        want="apparmor: restricts user namespaces"
else
        want="no restriction"
        case $real in "apparmor: restricts"*) ;; "apparmor: "* | "") real="no restriction" ;; esac
fi
check "this host: the line follows /proc/sys/kernel/apparmor_restrict_unprivileged_userns" "$want" "${real%% (*}"
