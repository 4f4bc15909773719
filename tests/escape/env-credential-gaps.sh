#!/usr/bin/env bash
# Attack: read credentials that env-blocked.sh's names do not cover: the bare words (PASSWORD,
# TOKEN, SECRET, API_KEY), key passphrases, password-manager sessions (Bitwarden, 1Password),
# npm/yarn registry tokens, and passwords in a URL under any name (scheme://user:pass@host).
# Control: their ordinary neighbours (TOKENIZERS_PARALLELISM, SECRETS_DIR, a proxy URL without a
# password...) and the agents' own credentials come through, and a URL with a password under an
# allowed name passes: the allow list wins over the value rule too.
. "$(dirname "$0")/../lib/tap.sh"

SHOW='import os, sys
for n in sys.argv[1:]:
    print(n + "=" + os.environ[n] if n in os.environ else n + " unset")'
blocked=(PASSWORD TOKEN SECRET API_KEY password GPG_PASSPHRASE DB_PASS BW_SESSION
         OP_SESSION_team npm_config__authToken npm_config__auth YARN_NPM_AUTH_IDENT)
url_blocked=(MIRROR_URL https_proxy GIT_REMOTE)
passed=(TOKENIZERS_PARALLELISM SECRETS_DIR KEY_TIMEOUT PASSWORD_STORE_DIR npm_config_registry
        GEMINI_API_KEY CLAUDE_CODE_OAUTH_TOKEN ANTHROPIC_AUTH_TOKEN)
for n in "${blocked[@]}"; do export "$n=env-s3cret-$n"; done
for n in "${url_blocked[@]}"; do export "$n=https://agent:env-s3cret-$n@host.example/x"; done
for n in "${passed[@]}"; do export "$n=visible-$n"; done
export HTTP_PROXY=http://proxy.example:3128
export OPENAI_API_KEY=https://agent:allowed@host.example/x

plan $(( ${#blocked[@]} + ${#url_blocked[@]} + ${#passed[@]} + 3 ))
outside=$(python3 -c "$SHOW" TOKEN MIRROR_URL | tr '\n' ' ')
check "control: TOKEN and MIRROR_URL are set outside" \
        "TOKEN=env-s3cret-TOKEN MIRROR_URL=https://agent:env-s3cret-MIRROR_URL@host.example/x " \
        "$outside"
run_sandboxed python3 -c "$SHOW" "${blocked[@]}" "${url_blocked[@]}" "${passed[@]}" \
        HTTP_PROXY OPENAI_API_KEY
for n in "${blocked[@]}"; do
        check "$n is removed" "$n unset" "$(printf '%s\n' "$out" | grep "^${n}[= ]")"
done
for n in "${url_blocked[@]}"; do
        check "$n (a password in a URL) is removed" "$n unset" "$(printf '%s\n' "$out" | grep "^${n}[= ]")"
done
for n in "${passed[@]}"; do
        check "control: $n is passed in" "$n=visible-$n" "$(printf '%s\n' "$out" | grep "^${n}[= ]")"
done
check "control: a proxy URL without a password is passed in" \
        "HTTP_PROXY=http://proxy.example:3128" "$(printf '%s\n' "$out" | grep "^HTTP_PROXY[= ]")"
check "control: a URL with a password under an allowed name is passed in" \
        "OPENAI_API_KEY=https://agent:allowed@host.example/x" \
        "$(printf '%s\n' "$out" | grep "^OPENAI_API_KEY[= ]")"
