#!/usr/bin/env bash
# The layers of libcordon include downwards only (docs/ARCHITECTURE.md, "Source layout"):
#   - the policy model (src/lib/policy/) includes nothing of the launcher, the mechanisms or
#     resolve (lib/launch/, lib/mech/, lib/resolve/): they ask the policy's tables, not the
#     other way round;
#   - agent profiles (src/lib/profiles/) include nothing of the settings model
#     (lib/settings/): settings fold the profiles in, profiles know nothing of settings;
#   - nothing below the launcher (resolve, config, settings, profiles, the mechanisms, the
#     network and proxy code, snapshots, terminals, the event loop, the Slurm submission
#     checker) includes the launcher or the
#     supervisor (lib/launch/, lib/supervisor/), with one exception named here:
#     lib/launch/confined-child.h, the confined helper that the configuration loader and the
#     SANDBOX_MODULES lowering run untrusted shell code in (a service of the launcher they call
#     up to); the mechanisms, the network code, snapshots, terminals and the loop include no
#     resolve, settings, configuration or profiles either;
#   - the Slurm integration's host side (src/lib/slurm/) reads the settings' values but
#     includes nothing of the launcher or the supervisor.
# Prints TAP, one line per file checked. Usage: check-layers.sh SOURCE_ROOT
set -u
root=${1:?usage: check-layers.sh SOURCE_ROOT}

# rule DIR FORBIDDEN_RE: one rule, a directory of src/lib and the includes it must not have.
# rule DIR:FORBIDDEN_RE[:ALLOWED_RE]: a directory of src/lib, the includes it must not have, and
# the exceptions among them.
upper='^lib/(launch|supervisor)/'
confined='^lib/launch/confined-child\.h$'
model='^lib/(launch|supervisor|resolve|settings|config|profiles)/'
rules=(
        "policy:^lib/(launch|mech|resolve)/"
        "profiles:^lib/settings/"
        "profiles:$upper:$confined"
        "resolve:$upper:$confined"
        "config:$upper:$confined"
        "settings:$upper"
        "mech:$model"
        "net:$model"
        "proxy:$model"
        "snapshot:$model"
        "terminal:$model"
        "loop:$model"
        "slurm:$upper"
)

files=()
for rule in "${rules[@]}"; do
        dir=${rule%%:*}
        for f in "$root"/src/lib/"$dir"/*.c "$root"/src/lib/"$dir"/*.cc "$root"/src/lib/"$dir"/*.h; do
                [ -f "$f" ] && files+=("$rule:$f")
        done
done
# A check that finds nothing to check passes by accident.
if [ ${#files[@]} -lt 10 ]; then
        echo "1..1"
        echo "not ok 1 - only ${#files[@]} files found under $root/src/lib"
        exit 1
fi

echo "1..${#files[@]}"
i=0 failed=0
for entry in "${files[@]}"; do
        rule=${entry%:*} f=${entry##*:} i=$((i + 1))
        dir=${rule%%:*} forbidden=${rule#*:} allowed='^$'
        case $forbidden in *:*) allowed=${forbidden#*:} forbidden=${forbidden%%:*} ;; esac
        rel=${f#"$root"/}
        bad=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p' "$f" |
                grep -E "$forbidden" | grep -vE "$allowed")
        if [ -z "$bad" ]; then
                echo "ok $i - $rel stays in its layer"
        else
                echo "not ok $i - $rel includes a layer above $dir/"
                printf '%s\n' "$bad" | sed 's/^/#   /'
                failed=$((failed + 1))
        fi
done
[ "$failed" -eq 0 ]
