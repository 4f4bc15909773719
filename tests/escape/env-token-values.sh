#!/usr/bin/env bash
# Attack: read credentials whose names say nothing: a token as a URL's user part
# (https://ghp_...@github.com/o/r), bare tokens of published shapes under innocent names (C=ghp_...,
# AUTH_HEADER=Bearer ..., an AWS key id, a JWT, Basic credentials), and web sessions (COOKIE,
# SESSION). The dry-run plan and the receipt name the removed variables, never their values.
# Control: ordinary values (PATH, LS_COLORS, an ssh remote, prose mentioning "Bearer") pass, and
# an agent's own key of a token shape (ANTHROPIC_API_KEY=sk-ant-...) still reaches it.
. "$(dirname "$0")/../lib/tap.sh"

SHOW='import os, sys
for n in sys.argv[1:]:
    print(n + "=" + os.environ[n] if n in os.environ else n + " unset")'
gh=ghp_Zq3vK8mN2pL5xR7tY1wB4cD6fH9jA0sE2gU4
export REMOTE="https://$gh@github.com/o/r" C=$gh AUTH_HEADER="Bearer abcdef0123456789abcdef"
export K=AKIAIOSFODNN7EXAMPLE B="Basic dXNlcjpwYXNz" COOKIE=sid=4f2a SESSION=s-81c7
export J=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlMTIz
blocked=(REMOTE C AUTH_HEADER K B COOKIE SESSION J)
export LS_COLORS='rs=0:di=01;34:ln=01;36:*.tar=01;31' REPO=ssh://git@github.com/o/r
export NOTE="Bearer tokens are supported" ANTHROPIC_API_KEY=sk-ant-api03-Zq3vK8mN2pL5xR7tY1wB4cD6fH9j
passed=(LS_COLORS REPO NOTE ANTHROPIC_API_KEY)

plan $(( ${#blocked[@]} + ${#passed[@]} + 5 ))
check "control: C holds the token outside" "C=$gh" "$(python3 -c "$SHOW" C)"
run_sandboxed python3 -c "$SHOW" "${blocked[@]}" "${passed[@]}" PATH
for n in "${blocked[@]}"; do
        check "$n (a credential by its value) is removed" "$n unset" \
                "$(printf '%s\n' "$out" | grep "^${n}[= ]")"
done
for n in "${passed[@]}"; do
        check "control: $n is passed in" "$n=${!n}" "$(printf '%s\n' "$out" | grep "^${n}[= ]")"
done
line=$(printf '%s\n' "$out" | grep "^PATH=")
check "control: PATH is passed in" "yes" "$([[ $line == PATH=*"$PATH" ]] && echo yes || echo "$line")"

plan_text=$(cd "$T_PROJECT" && "$CORDON" run --dry-run -- true 2>&1)
removed=$(printf '%s\n' "$plan_text" | sed -n 's/^  removed: //p')
missing=""
for n in "${blocked[@]}"; do [[ " $removed " == *" $n "* ]] || missing+=" $n"; done
check "the dry-run plan names every removed variable (missing:$missing)" "" "$missing"
check "... and shows none of their values" "" \
        "$(printf '%s\n' "$plan_text" | grep -F -e "$gh" -e sid=4f2a -e dXNlcjpwYXNz)"

(cd "$T_PROJECT" && "$CORDON" run --quiet --receipt "$T_TMP/receipt.json" -- true)
names=$(python3 -c 'import json, sys; print(" ".join(json.load(open(sys.argv[1]))["env_blocked_names"]))' \
        "$T_TMP/receipt.json" 2>&1)
missing=""
for n in "${blocked[@]}"; do [[ " $names " == *" $n "* ]] || missing+=" $n"; done
check "the receipt names every removed variable, no value (missing:$missing)" ":0" \
        "$missing:$(grep -c -F -e "$gh" -e sid=4f2a "$T_TMP/receipt.json")"
