#!/usr/bin/env bash
# `cordon doctor`: one line per check, each cross-checked against an independent control (unshare,
# the Landlock syscall from Python, /proc/self/status, stat -f, command -v); --json carries the same
# facts; the exit status follows user namespaces; misuse exits 2.
. "$(dirname "$0")/../lib/tap.sh"

out=$("$CORDON" doctor 2>"$T_TMP/err"); rc=$?
json=$("$CORDON" doctor --json 2>"$T_TMP/json-err"); json_rc=$?
line() { printf '%s\n' "$out" | grep "^$1: " | head -1; }

# Controls, computed without cordon.
if unshare -Ur true 2>/dev/null; then userns=yes; else userns=no; fi
landlock=$(python3 -c 'import ctypes
libc = ctypes.CDLL(None, use_errno=True)
# landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION); 444 on every architecture
abi = libc.syscall(444, None, 0, 1)
print("ABI %d" % abi if abi > 0 else "unavailable")')
if grep -q '^Seccomp_filters:' /proc/self/status; then seccomp=yes; else seccomp=no; fi
pasta=$(command -v pasta || echo "not found in PATH")
cgroup_expect() {
        local mount path dir
        if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
                printf 'v2'; mount=/sys/fs/cgroup
        elif [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
                printf 'v2 hybrid'; mount=/sys/fs/cgroup/unified
        else
                printf 'v1 only'; return
        fi
        path=$(sed -n 's/^0:://p' /proc/self/cgroup)
        dir=$mount${path%/}
        if [ -w "$dir" ] && [ -w "$dir/cgroup.procs" ] && [ -w "$dir/cgroup.subtree_control" ]; then
                printf ', delegated'
        else
                printf ', not delegated'
        fi
}

plan 16

if [ "$userns" = yes ]; then
        check "exit status 0: user namespaces work here" "0" "$rc"
else
        skip "user namespaces are unavailable to $(id -un) (unshare -Ur failed)" \
                "exit status 0: user namespaces work here"
fi

labels=$(printf '%s\n' "$out" | sed 's/:.*//' | paste -sd,)
check "text: one line per check, in order" \
        "user namespaces,landlock,seccomp,cgroup,pasta,landlock features,backend,landlock backend" \
        "$(printf '%s\n' "$labels" | tr , '\n' | grep -v '^landlock backend gap$' | paste -sd,)"

ul=$(line "user namespaces")
case "${ul#*: }" in
yes) got=yes ;;
"no ("*")") got="no, with a reason" ;;
*) got="${ul#*: }" ;;
esac
check "user namespaces: agrees with unshare -Ur" \
        "$([ "$userns" = yes ] && echo yes || echo "no, with a reason")" "$got"

ll=$(line landlock)
check "landlock: agrees with landlock_create_ruleset from Python" "$landlock" "$(printf '%s' "${ll#landlock: }" | sed 's/ (.*//')"

sl=$(line seccomp)
check "seccomp: agrees with /proc/self/status" "$seccomp" "$(printf '%s' "${sl#seccomp: }" | sed 's/ (.*//')"

cl=$(line cgroup)
check "cgroup: layout and delegation agree with stat -f and test -w" "$(cgroup_expect)" \
        "$(printf '%s' "${cl#cgroup: }" | sed 's/ (.*//; s/;.*//')"

check "pasta: agrees with command -v" "pasta: $pasta" "$(line pasta)"

# ABI n brings these features; the control is the ABI from Python above.
features=""
if [ "$landlock" != unavailable ]; then
        abi=${landlock#ABI }; i=0
        for f in filesystem refer truncate tcp ioctl_dev scope; do
                i=$((i + 1)); [ "$abi" -ge "$i" ] && features="$features $f"
        done
else
        features=" none"
fi
check "landlock features: what the ABI offers" "landlock features:$features" "$(line "landlock features")"
if [ "$userns" = yes ]; then want=ns; elif [ "$landlock" != unavailable ]; then want=landlock; else want=none; fi
check "backend: what auto picks follows the controls" "$want" \
        "$(line backend | sed 's/^backend: //; s/ (.*//; s/^none can run here$/none/')"
gaps=$(printf '%s\n' "$out" | grep -c '^landlock backend gap: ')
if [ "$gaps" -ge 4 ] && printf '%s\n' "$out" | grep -q 'gap: .*EACCES instead of being hidden'; then
        ok "landlock backend: its gaps are listed ($gaps lines)"
else
        not_ok "landlock backend: its gaps are listed" "$out"
fi

keys=$(printf '%s' "$json" | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(",".join(k for k in ("user_namespaces", "landlock", "seccomp", "cgroup", "pasta",
                           "ns_backend_usable") if k in d))' 2>&1 | tail -1)
check "--json: parses, with every key" \
        "user_namespaces,landlock,seccomp,cgroup,pasta,ns_backend_usable" "$keys"

from_json=$(printf '%s' "$json" | python3 -c 'import json, sys
d = json.load(sys.stdin)
yn = lambda b: "yes" if b else "no"
print(yn(d["user_namespaces"]["usable"]),
      "ABI %d" % d["landlock"]["abi"] if d["landlock"]["available"] else "unavailable",
      yn(d["seccomp"]["available"]), yn(d["cgroup"]["delegated"]),
      d["pasta"]["path"] or "not found in PATH", sep="|")' 2>&1 | tail -1)
delegated=no
case "$cl" in *", delegated"*) delegated=yes ;; esac
from_text="$(printf '%s' "${ul#*: }" | sed 's/ (.*//')|$(printf '%s' "${ll#landlock: }" | sed 's/ (.*//')"
from_text="$from_text|$(printf '%s' "${sl#seccomp: }" | sed 's/ (.*//')|$delegated|$(line pasta | sed 's/^pasta: //')"
check "--json: the same facts as the text" "$from_text" "$from_json"

check "--json: the same exit status as the text" "$rc" "$json_rc"

bogus_out=$("$CORDON" doctor --bogus 2>"$T_TMP/bogus-err"); bogus_rc=$?
check "--bogus: exit status 2" "2" "$bogus_rc"
if [ -z "$bogus_out" ] && grep -q "^Usage: cordon doctor" "$T_TMP/bogus-err" &&
        grep -q -- "--bogus" "$T_TMP/bogus-err"; then
        ok "--bogus: names the option and prints usage on stderr, nothing on stdout"
else
        not_ok "--bogus: names the option and prints usage on stderr, nothing on stdout" \
                "stdout: $bogus_out" "stderr: $(head -2 "$T_TMP/bogus-err" | paste -sd' ')"
fi

help_out=$("$CORDON" doctor --help 2>/dev/null); help_rc=$?
if [ "$help_rc" = 0 ] && printf '%s\n' "$help_out" | grep -q -- "--json"; then
        ok "--help: exit status 0, lists --json"
else
        not_ok "--help: exit status 0, lists --json" "status $help_rc" "$help_out"
fi
