#!/usr/bin/env bash
# A user moving from agent-sandbox: its configuration files, unchanged, load and mean the same.
# tests/fixtures/agent-sandbox/ holds a user file and an admin baseline written for this test with
# every construct agent-sandbox's shipped files (v0.13.1) use; this file loads them as that user
# would (~/.config/agent-sandbox/, no file of cordon's own) and checks that the start prints no
# line but the documented ones and that the values take effect inside.
#
# agent-sandbox's real shipped sandbox.conf was loaded the same way during development, from
# katosh/agent_sandbox at commit 50c94d1 (v0.13.1): it started a sandbox with the documented
# lines only. When a checkout of that repository is at hand (AGENT_SANDBOX_GIT names its git
# directory), the last test loads that commit's file again; CI has none, so it is not counted
# there.
# shellcheck disable=SC2016 # the quoted scripts expand inside
. "$(dirname "$0")/../lib/tap.sh"

cd "$T_PROJECT" || exit 1
fx=$T_SRC/tests/fixtures/agent-sandbox
legacy=$HOME/.config/agent-sandbox
reset() { rm -rf "$HOME/.config/cordon" "$legacy"; mkdir -p "$legacy"; }
real_git=${AGENT_SANDBOX_GIT:-}
real_rev=50c94d1
real_conf=
if [ -n "$real_git" ] && git -c safe.directory="*" -C "$real_git" cat-file -e "$real_rev:sandbox.conf" 2>/dev/null; then
        real_conf=$(git -c safe.directory="*" -C "$real_git" show "$real_rev:sandbox.conf")
fi

# The lines a drop-in start may print with --quiet, each documented in cordon-config(5): that
# agent-sandbox's files are read, that a read-only mount is missing on this host, where the
# host-name rules of NETWORK_BLOCKLIST apply, and under the landlock backend (no network
# namespace) that filtered mode falls back as NETWORK_FILTER_FALLBACK says. Prints the others.
unexpected_lines() {
        printf '%s\n' "$1" | grep -v \
                -e "^cordon: warning: reading agent-sandbox's configuration in " \
                -e "^cordon: \(warning: \)\?network mode filtered .*cannot be delivered: the landlock backend has no network namespace.*NETWORK_FILTER_FALLBACK=open .*: using open instead" \
                -e "^cordon: warning: READONLY_MOUNTS entr\(y\|ies\) not on this host, not shown inside: " \
                -e "^cordon: warning: filtered mode: [0-9]* NETWORK_BLOCKLIST host-name entries apply to the names its resolver answers, .*; listed by cordon config explain NETWORK_BLOCKLIST$" \
                -e '^OK$' -e '^$'
}

plan $((9 + (${#real_conf} > 0 ? 3 : 0)))

# ---- the user file loads with the documented lines only ----
reset
cp "$fx/sandbox.conf" "$legacy/sandbox.conf"
out=$("$CORDON" run --quiet -- sh -c 'echo OK' 2>&1); rc=$?
check "agent-sandbox's user file loads unchanged and the command runs" "0" "$rc"
extra=$(unexpected_lines "$out")
check "the start prints no line but the documented ones" "" "$extra"
case $out in
*"READONLY_MOUNTS"*"/app"*) ok "the missing read-only mount /app is named in a warning" ;;
*) not_ok "the missing read-only mount /app is named in a warning" "$out" ;;
esac

# ---- its values mean the same inside ----
echo 'keep' >"$HOME/.bashrc"
out=$(EXAMPLE_PAT=p My_Passphrase_2=s ANTHROPIC_API_KEY=k GIT_AUTH_TOKEN=t \
        "$CORDON" run --quiet -- sh -c '
                env | grep -E "^(EXAMPLE_PAT|My_Passphrase_2|ANTHROPIC_API_KEY|GIT_AUTH_TOKEN)=" | sort | tr "\n" " "
                echo x >"$HOME/new-in-home" 2>/dev/null && echo home-write
                python3 -c "$1" "open(p, \"a\")" "$HOME/.bashrc"' sh "$TRY" 2>/dev/null)
# (the landlock backend has no scratch home: cordon doctor names the gap)
check "BLOCKED_ENV_VARS, the /i pattern and ALLOWED_ENV_VARS; a tmpwrite home; a read-only .bashrc" \
        "ANTHROPIC_API_KEY=k $(on_backend "home-write EROFS" EACCES)" "$(printf '%s' "$out" | tr '\n' ' ' | sed 's/ *$//;s/  */ /g')"
if [ -e "$HOME/new-in-home" ]; then not_ok "HOME_ACCESS=tmpwrite: what the command wrote in the home is gone"; else ok "HOME_ACCESS=tmpwrite: what the command wrote in the home is gone"; fi
check "the .bashrc is unchanged" "keep" "$(cat "$HOME/.bashrc")"

# Every blocklist form is kept as written.
list=$("$CORDON" config show --json 2>/dev/null | python3 -c 'import json,sys
v=json.load(sys.stdin)["variables"]
print(" ".join(i["value"] for i in v["NETWORK_BLOCKLIST"]["items"] if i["origin"].startswith(sys.argv[1])))' "$legacy")
check "every NETWORK_BLOCKLIST form of the file is taken as written" \
        "127.0.0.1:25 [::1]:25 0.0.0.0/0:587 [::]/0:587 198.51.100.0/24 203.0.113.9 mail-api.example.com relay.*.example.net *.paste.example.org hooks.example.com/api/hooks 853 23" \
        "$list"

# ---- the admin baseline and user.conf beside it ----
admin=$T_SRC/tests/fixtures/agent-sandbox/sandbox-admin.conf
if [ "$(stat -c %u "$admin")" != 0 ] || [ "$(stat -c %u "$fx")" != 0 ] || [ -e /etc/cordon/sandbox.conf ] ||
        [ -e /app/lib/agent-sandbox/sandbox.conf ]; then
        skip "the admin fixture is not root's, or this machine has a real admin baseline" \
                "agent-sandbox's admin baseline and user.conf load unchanged"
        skip "the admin fixture is not root's, or this machine has a real admin baseline" \
                "the admin's floor holds against the user file"
else
        reset
        cp "$fx/sandbox.conf" "$legacy/user.conf"
        out=$(CORDON_ADMIN_CONF=$admin "$CORDON" run --quiet -- sh -c 'echo OK' 2>&1); rc=$?
        extra=$(printf '%s\n' "$out" | grep -v -e "ALLOWED_PROJECT_PARENTS" | { unexpected_lines "$(cat)"; })
        check "agent-sandbox's admin baseline and user.conf load unchanged" "0:" "$rc:$extra"
        got=$(CORDON_ADMIN_CONF=$admin "$CORDON" config show --json 2>/dev/null | python3 -c 'import json,sys
v=json.load(sys.stdin)["variables"]
print(" ".join(i["value"] for i in v["DENIED_WRITABLE_PATHS"]["items"]), "|",
      " ".join(i["value"] for i in v["ALLOWED_PROJECT_PARENTS"]["items"]))')
        check "the admin's floor holds against the user file" "/etc /app $HOME/.ssh $HOME/.gnupg | $HOME" "$got"
fi

# ---- agent-sandbox's real file, when a checkout is at hand ----
if [ -n "$real_conf" ]; then
        reset
        printf '%s\n' "$real_conf" >"$legacy/sandbox.conf"
        out=$("$CORDON" run --quiet -- sh -c 'echo OK' 2>&1); rc=$?
        check "agent-sandbox's shipped sandbox.conf ($real_rev) loads with the documented lines only" \
                "0:" "$rc:$(unexpected_lines "$out")"
        # Its agent folders as they are: one documented line for each overlay.sh, never run.
        for a in claude codex gemini; do
                mkdir -p "$legacy/agents/$a"
                for f in config.conf overlay.sh agent.md settings.json; do
                        git -c safe.directory="*" -C "$real_git" show "$real_rev:agents/$a/$f" \
                                >"$legacy/agents/$a/$f" 2>/dev/null || rm -f "$legacy/agents/$a/$f"
                done
        done
        out=$("$CORDON" run --quiet -- sh -c 'echo OK' 2>&1); rc=$?
        check "... with its agent folders, each overlay.sh named once as not run" "0:3:" \
                "$rc:$(grep -c "agents/[a-z]*/overlay.sh is not run" <<<"$out"):$(unexpected_lines "$out" | grep -v 'overlay.sh is not run')"
        # Its admin baseline, which must be root's in root's directories: the root pass only.
        if [ "$(id -u)" = 0 ] && [ ! -e /etc/cordon/sandbox.conf ] && [ ! -e /app/lib/agent-sandbox/sandbox.conf ]; then
                mkdir -m 0755 "$T_TMP/admin"
                git -c safe.directory="*" -C "$real_git" show "$real_rev:sandbox-admin.conf" >"$T_TMP/admin/sandbox.conf"
                chmod 0644 "$T_TMP/admin/sandbox.conf"
                mv "$legacy/sandbox.conf" "$legacy/user.conf"
                out=$(CORDON_ADMIN_CONF=$T_TMP/admin/sandbox.conf "$CORDON" run --quiet -- sh -c 'echo OK' 2>&1); rc=$?
                check "... and its admin baseline with the file as user.conf" "0:" \
                        "$rc:$(unexpected_lines "$out" | grep -v -e 'overlay.sh is not run' -e 'ALLOWED_PROJECT_PARENTS')"
        else
                ok "... and its admin baseline # SKIP as root only, with no real admin baseline here"
        fi
else
        echo "# agent-sandbox's shipped file not at hand (AGENT_SANDBOX_GIT); not counted"
fi
