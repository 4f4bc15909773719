#!/usr/bin/env bash
# Must keep working: TOOL_CONFIG_COPIES. ~/.npmrc (a credential store, hidden whole) and
# ~/.gitconfig reach the command as copies with their settings and without their credentials:
# npm sees the registry and strict-ssl set there but no token, git the user name but no
# credential helper or extra header. Both backends: the ns backend mounts the copy at the
# file's own path, the landlock backend names it in NPM_CONFIG_USERCONFIG and
# GIT_CONFIG_GLOBAL. The host's files are unchanged; TOOL_CONFIG_COPIES=false hands none over.
. "$(dirname "$0")/../lib/tap.sh"

token=npm_abcdefghijklmnopqrstuvwxyz0123456789
printf 'registry=http://registry.invalid/\n//registry.invalid/:_authToken=%s\nstrict-ssl=false\n' \
        "$token" > "$HOME/.npmrc"
printf '[user]\n\tname = Host User\n[credential]\n\thelper = store\n[http]\n\textraHeader = Authorization: Bearer %s\n' \
        "$token" > "$HOME/.gitconfig"
before=$(cat "$HOME/.npmrc" "$HOME/.gitconfig" | sha256sum)

plan 8
if command -v npm >/dev/null; then
        run_sandboxed npm config get registry
        check "npm reads the registry of ~/.npmrc" "0:http://registry.invalid/" "$rc:$out"
        run_sandboxed npm config get strict-ssl
        check "... and its strict-ssl" "0:false" "$rc:$out"
else
        skip "npm is not installed" "npm reads the registry of ~/.npmrc"
        skip "npm is not installed" "... and its strict-ssl"
fi
run_sandboxed sh -c 'cat "${NPM_CONFIG_USERCONFIG:-$HOME/.npmrc}"'
check "the copy of ~/.npmrc holds no token" "0:registry=http://registry.invalid/ strict-ssl=false" \
        "$rc:$(echo $out)"
run_sandboxed git config --global user.name
check "git reads the user name of ~/.gitconfig" "0:Host User" "$rc:$out"
run_sandboxed sh -c 'git config --global --list; cat ~/.npmrc ~/.gitconfig 2>/dev/null; true'
case $out in
*"$token"* | *helper* | *extraheader* | *extraHeader*) not_ok "nothing inside shows a credential" "$out" ;;
*) ok "nothing inside shows a credential" ;;
esac
out=$(cd "$T_PROJECT" && "$CORDON" run --dry-run -- true 2>&1)
case $out in
*"without //registry.invalid/:_authToken"*"$token"* | *"$token"*) not_ok "--dry-run names no value" "$out" ;;
*"TOOL_CONFIG_COPIES without //registry.invalid/:_authToken"*) ok "--dry-run names the dropped keys, not their values" ;;
*) not_ok "--dry-run names the dropped keys, not their values" "$out" ;;
esac
check "the host's files are unchanged" "$before" "$(cat "$HOME/.npmrc" "$HOME/.gitconfig" | sha256sum)"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --set TOOL_CONFIG_COPIES=false -- \
        sh -c 'cat "${NPM_CONFIG_USERCONFIG:-$HOME/.npmrc}" 2>/dev/null | wc -c' 2>&1)
check "TOOL_CONFIG_COPIES=false: ~/.npmrc stays hidden whole" "0" "$out"
