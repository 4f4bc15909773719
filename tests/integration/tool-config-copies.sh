#!/usr/bin/env bash
# Must keep working: TOOL_CONFIG_COPIES. ~/.npmrc (a credential store, hidden whole) and
# ~/.gitconfig reach the command as copies with their settings and without their credentials:
# npm sees the registry and strict-ssl set there but no token, git the user name but no
# credential helper or extra header. Both backends: the ns backend mounts the copy at the
# file's own path, the landlock backend names it in NPM_CONFIG_USERCONFIG and
# GIT_CONFIG_GLOBAL. The host's files are unchanged; TOOL_CONFIG_COPIES=false hands none over.
# The copies are the sandbox's own to change, by rename too: `git config --global` (a lock file
# renamed over the copy), `npm config set`, pip's configuration rewritten; a second command of
# the same run sees the change, the host's files stay byte for byte what they were, and a
# GIT_CONFIG_GLOBAL of the caller's own is left as it is. With only ~/.config/git/config (in the
# read-only ~/.config/git of the ns backend) git writes a writable twin on the private /tmp.
. "$(dirname "$0")/../lib/tap.sh"

token=npm_abcdefghijklmnopqrstuvwxyz0123456789
printf 'registry=http://registry.invalid/\n//registry.invalid/:_authToken=%s\nstrict-ssl=false\n' \
        "$token" > "$HOME/.npmrc"
printf '[user]\n\tname = Host User\n[credential]\n\thelper = store\n[http]\n\textraHeader = Authorization: Bearer %s\n' \
        "$token" > "$HOME/.gitconfig"
mkdir -p "$HOME/.config/pip"
printf '[global]\ntimeout = 60\nindex-url = https://user:%s@pypi.invalid/simple\n' "$token" \
        > "$HOME/.config/pip/pip.conf"
hashes() { cat "$HOME/.npmrc" "$HOME/.gitconfig" "$HOME/.config/pip/pip.conf" | sha256sum; }
before=$(hashes)

plan 18
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
check "the host's files are unchanged" "$before" "$(hashes)"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --set TOOL_CONFIG_COPIES=false -- \
        sh -c 'cat "${NPM_CONFIG_USERCONFIG:-$HOME/.npmrc}" 2>/dev/null | wc -c' 2>&1)
check "TOOL_CONFIG_COPIES=false: ~/.npmrc stays hidden whole" "0" "$out"

# Writes by rename. git config writes ~/.gitconfig.lock (or the file GIT_CONFIG_GLOBAL names,
# plus .lock) and renames it over the copy: under the ns backend the copy is a plain file of the
# tmpwrite home (a bind's mount point refused the rename with EBUSY), under the landlock backend
# a file of its private TMPDIR.
run_sandboxed sh -c 'git config --global user.name "Sandbox User" && git config --global user.name'
check "git config --global writes the copy by rename; a second git sees it" "0:Sandbox User" \
        "$rc:$out"
if command -v npm >/dev/null; then
        run_sandboxed sh -c 'npm config set init-author-name sandbox-author && npm config get init-author-name'
        check "npm config set writes the copy of ~/.npmrc; npm config get sees it" \
                "0:sandbox-author" "$rc:$(tail -n 1 <<<"$out")"
else
        ok "npm config set writes the copy of ~/.npmrc # SKIP npm is not installed"
fi
if command -v pip >/dev/null; then
        if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
                # pip config set refuses while PIP_CONFIG_FILE is set (pip's own "Fatal Internal
                # error", outside cordon too); the file it names is rewritten by rename instead.
                run_sandboxed sh -c 'python3 -c "import os; p = os.environ[\"PIP_CONFIG_FILE\"]; open(p + \".new\", \"w\").write(\"[global]\\ntimeout = 5\\n\"); os.replace(p + \".new\", p)" && pip config list'
        else
                run_sandboxed sh -c 'pip config set global.timeout 5 >/dev/null && pip config list'
        fi
        # (pip config get reads only the user's file, which PIP_CONFIG_FILE turns off.)
        check "pip's copy is rewritten (ns: pip config set; landlock: by rename); pip sees it" \
                "0:global.timeout='5'" "$rc:$(grep '^global.timeout=' <<<"$out")"
else
        ok "pip's copy is rewritten # SKIP pip is not installed"
fi
check "... and the host's files are byte for byte unchanged" "$before" "$(hashes)"
leftover=$(ls -A "$HOME" | grep -E '\.lock$|^\.cordon' || true)
check "... with nothing left beside them" "" "$leftover"
# The landlock backend's TMPDIR copy goes with the run.
run_sandboxed sh -c 'echo "${GIT_CONFIG_GLOBAL:-}"'
if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
        case $out in
        /tmp/cordon-*/.cordon-config-*) [ ! -e "$out" ] && ok "the TMPDIR copy is gone after the run" ||
                not_ok "the TMPDIR copy is gone after the run" "$out is still there" ;;
        *) not_ok "the TMPDIR copy is gone after the run" "GIT_CONFIG_GLOBAL=$out" ;;
        esac
else
        check "the ns backend names no twin when the copy is writable at its own path" "" "$out"
fi

# The caller's own GIT_CONFIG_GLOBAL stands, on both backends.
printf '[user]\n\tname = Own User\n' > "$T_PROJECT/own.gitconfig"
out=$(cd "$T_PROJECT" && GIT_CONFIG_GLOBAL=$T_PROJECT/own.gitconfig "$CORDON" run --quiet --net isolated -- \
        sh -c 'echo "$GIT_CONFIG_GLOBAL"; git config --global user.name' 2>&1)
check "a GIT_CONFIG_GLOBAL of the caller's own is left as it is" \
        "$T_PROJECT/own.gitconfig Own User" "$(echo $out)"

# Only ~/.config/git/config: under the ns backend its copy lies in the read-only ~/.config/git,
# and git config --global writes the writable twin GIT_CONFIG_GLOBAL names on the private /tmp.
mv "$HOME/.gitconfig" "$T_TMP/gitconfig.aside"
mkdir -p "$HOME/.config/git"
printf '[user]\n\tname = Xdg User\n[credential]\n\thelper = store\n' > "$HOME/.config/git/config"
xdg_before=$(sha256sum < "$HOME/.config/git/config")
run_sandboxed sh -c 'git config --global user.name; git config --global user.name "Sandbox Xdg" && git config --global user.name; git config --global --list'
case $out in
*helper*) not_ok "only ~/.config/git/config: git config --global writes a copy of it" "$out" ;;
*) check "only ~/.config/git/config: git config --global writes a copy of it" \
        "0:Xdg User Sandbox Xdg user.name=Sandbox Xdg" "$rc:$(echo $out)" ;;
esac
check "... and the host's ~/.config/git/config is unchanged" "$xdg_before" \
        "$(sha256sum < "$HOME/.config/git/config")"
# (grep -F: the brackets of the plan's marks are no glob.)
plan_out=$(cd "$T_PROJECT" && "$CORDON" run --dry-run -- true 2>&1)
if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
        want="/.config/git/config <- (generated) [landlock: a writable copy in its TMPDIR, named by GIT_CONFIG_GLOBAL]"
else
        want="/tmp/.cordon-config-gitconfig <- (generated) [writable, discarded on exit; named by GIT_CONFIG_GLOBAL]"
fi
if grep -qF -- "$want" <<<"$plan_out"; then
        ok "--dry-run says where the writable copy is"
else
        not_ok "--dry-run says where the writable copy is" "expected a line with: $want" \
                "$(grep TOOL_CONFIG_COPIES <<<"$plan_out")"
fi
rm -rf "$HOME/.config/git"
mv "$T_TMP/gitconfig.aside" "$HOME/.gitconfig"
