#!/usr/bin/env bash
# The layers of libcordon include downwards only (docs/ARCHITECTURE.md, "Source layout"):
#   - the policy model (src/lib/policy/) includes nothing of the launcher, the mechanisms or
#     resolve (lib/launch/, lib/mech/, lib/resolve/): they ask the policy's tables, not the
#     other way round;
#   - agent profiles (src/lib/profiles/) include nothing of the settings model
#     (lib/settings/): settings fold the profiles in, profiles know nothing of settings.
# Prints TAP, one line per file checked. Usage: check-layers.sh SOURCE_ROOT
set -u
root=${1:?usage: check-layers.sh SOURCE_ROOT}

# rule DIR FORBIDDEN_RE: one rule, a directory of src/lib and the includes it must not have.
rules=(
        "policy:^lib/(launch|mech|resolve)/"
        "profiles:^lib/settings/"
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
        dir=${rule%%:*} forbidden=${rule#*:}
        rel=${f#"$root"/}
        bad=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p' "$f" |
                grep -E "$forbidden")
        if [ -z "$bad" ]; then
                echo "ok $i - $rel stays in its layer"
        else
                echo "not ok $i - $rel includes a layer above $dir/"
                printf '%s\n' "$bad" | sed 's/^/#   /'
                failed=$((failed + 1))
        fi
done
[ "$failed" -eq 0 ]
