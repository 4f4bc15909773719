#!/usr/bin/env bash
# Attack: read credentials from the environment the sandboxed command inherits.
# Control: unrelated variables and the allowed API keys do come through; outside, all are set.
. "$(dirname "$0")/../lib/tap.sh"

SHOW='import os, sys
for n in sys.argv[1:]:
    print(n + "=" + os.environ[n] if n in os.environ else n + " unset")'
blocked=(GITHUB_TOKEN AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY SSH_AUTH_SOCK GITHUB_PAT DATABASE_URL
         MYAPP_SECRET DB_PASSWORD app_secret_x)
passed=(HARMLESS_SETTING ANTHROPIC_API_KEY OPENAI_API_KEY)
for n in "${blocked[@]}"; do export "$n=env-s3cret-$n"; done
# app_secret_x stands for credentials named in lower case or with a suffix after "secret"; it
# has a value of its own so that the sweep at the end does not report it a second time.
export app_secret_x=lower-s3cret
for n in "${passed[@]}"; do export "$n=visible-$n"; done

plan $(( ${#blocked[@]} + ${#passed[@]} + 3 ))
outside=$(python3 -c "$SHOW" GITHUB_TOKEN app_secret_x)
check "control: GITHUB_TOKEN and app_secret_x are set outside" \
        "GITHUB_TOKEN=env-s3cret-GITHUB_TOKEN app_secret_x=lower-s3cret" \
        "$(printf '%s' "$outside" | tr '\n' ' ')"
run_sandboxed python3 -c "$SHOW" "${blocked[@]}" "${passed[@]}"
for n in "${passed[@]}"; do
        check "$n is passed in" "$n=visible-$n" "$(printf '%s\n' "$out" | grep "^${n}[= ]")"
done
for n in "${blocked[@]}"; do
        check "$n is removed" "$n unset" "$(printf '%s\n' "$out" | grep "^${n}[= ]")"
done
check "SANDBOX_ACTIVE=1 is set" "SANDBOX_ACTIVE=1" \
        "$(cd "$T_PROJECT" && "$CORDON" run --quiet -- python3 -c "$SHOW" SANDBOX_ACTIVE 2>&1)"
run_sandboxed sh -c 'env; tr "\0" "\n" </proc/self/environ'
case $out in
*env-s3cret*) not_ok "no secret value in env or /proc/self/environ" \
        "$(printf '%s\n' "$out" | grep env-s3cret)" ;;
*) ok "no secret value in env or /proc/self/environ" ;;
esac
