#!/usr/bin/env bash
# The AppArmor profile `make install` ships (data/apparmor/cordon.in, generated with the real
# path of the installed binary): apparmor_parser accepts it (parse only, -Q -K: nothing reaches
# the kernel), it is the profile "cordon", attached to BINDIR/cordon of this installation, and
# it grants `userns` and nothing else (unconfined, as Ubuntu ships for bwrap). A control shows
# the same parser rejects a broken rule, so acceptance means something.
# shellcheck disable=SC1091 # staged by run-tap.sh
. "$T_SRC/tests/lib/tap.sh"
. "$T_SRC/tests/lib/apparmor.sh"

plan 6
D=${T_INSTALL:-}
copy=$(find "$D" -path '*/cordon/apparmor/cordon' -type f 2>/dev/null | head -1)
bin=$(find "$D" -path '*/bin/cordon' -type f 2>/dev/null | head -1)
if [ -n "$copy" ] && [ -n "$bin" ]; then
        ok "the installation has the profile's copy (${copy#"$D"}) and the binary (${bin#"$D"})"
else
        not_ok "the installation has the profile's copy and the binary" "copy: '$copy' bin: '$bin'" \
                "$(cat "$T_SRC/install.log" 2>/dev/null)"
fi

want="profile cordon \"${bin#"$D"}\" flags=(unconfined) {"
check "it is the profile cordon, unconfined, attached to the installed binary" "$want" \
        "$(grep '^profile ' "$copy" 2>/dev/null)"
# The rules between the braces, comments and blank lines aside: userns and the local include.
body=$(sed -n '/^profile /,/^}/p' "$copy" 2>/dev/null | sed '1d;$d; s/#.*//; s/^ *//; /^$/d' | paste -sd'|')
check "it grants userns and nothing else" "userns,|include if exists <local/cordon>" "$body"
check "it is written for AppArmor 4 (abi <abi/4.0>)" "abi <abi/4.0>," "$(grep '^abi ' "$copy" 2>/dev/null)"

if aa_parser_find; then
        out=$("${AA_PARSER[@]}" -Q -K -N ${AA_BASE:+-b "$AA_BASE"} "$copy" 2>&1); rc=$?
        check "apparmor_parser -Q -K accepts it, one profile named cordon" "0|cordon" \
                "$rc|$(printf '%s\n' "$out" | grep -v '^Cache read/write disabled' | paste -sd,)"
        sed 's/^\( *\)userns,/\1userns bogus,/' "$copy" >"$T_TMP/broken"
        if ! "${AA_PARSER[@]}" -Q -K ${AA_BASE:+-b "$AA_BASE"} "$T_TMP/broken" >/dev/null 2>&1; then
                ok "control: the same parser rejects a broken userns rule"
        else
                not_ok "control: the same parser rejects a broken userns rule"
        fi
else
        skip "$AA_WHY" "apparmor_parser -Q -K accepts it, one profile named cordon"
        skip "$AA_WHY" "control: the same parser rejects a broken userns rule"
fi
