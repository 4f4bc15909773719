#!/usr/bin/env bash
# Attack: read the cloud SDKs' credentials from the environment: AWS (and its older AMAZON_ and
# EC2_ tools), Azure and MSAL's token cache, Google Cloud (gcloud's CLOUDSDK_*, a service
# account key's path). Control: the same values are set outside, and variables that only look
# alike (AWSOME, MY_AWS_THING) come through.
. "$(dirname "$0")/../lib/tap.sh"

SHOW='import os, sys
for n in sys.argv[1:]:
    print(n + "=" + os.environ[n] if n in os.environ else n + " unset")'
blocked=(AWS_SESSION_TOKEN AWS_REGION AWS_WEB_IDENTITY_TOKEN_FILE AMAZON_ACCESS_KEY EC2_CERT
         AZURE_CLIENT_SECRET MSAL_CACHE CLOUDSDK_AUTH_ACCESS_TOKEN CLOUDSDK_CONFIG
         GOOGLE_APPLICATION_CREDENTIALS GCLOUD_PROJECT GOOGLE_CLOUD_PROJECT)
passed=(AWSOME MY_AWS_THING GOOGLE_API_KEY)
for n in "${blocked[@]}"; do export "$n=cloud-s3cret-$n"; done
for n in "${passed[@]}"; do export "$n=visible-$n"; done

plan $(( ${#blocked[@]} + ${#passed[@]} + 1 ))
check "control: AWS_SESSION_TOKEN is set outside" "AWS_SESSION_TOKEN=cloud-s3cret-AWS_SESSION_TOKEN" \
        "$(python3 -c "$SHOW" AWS_SESSION_TOKEN)"
run_sandboxed python3 -c "$SHOW" "${blocked[@]}" "${passed[@]}"
for n in "${blocked[@]}"; do
        check "$n is removed" "$n unset" "$(printf '%s\n' "$out" | grep "^${n}[= ]")"
done
for n in "${passed[@]}"; do
        check "control: $n is passed in" "$n=visible-$n" "$(printf '%s\n' "$out" | grep "^${n}[= ]")"
done
