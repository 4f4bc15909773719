#!/usr/bin/env bash
# `cordon run`'s one-line hint after a failed command: a command that fails on a path of the
# home the sandbox hides (named as an argument, or as a word of a `sh -c` script) gets the line
# naming HOME_ACCESS and the fix, --ro ~/src/lib, which works; a masked credential store is
# named with where to look; a read-only .git/config in the project names --git-writable (ns
# backend: the landlock backend does not keep it); a failure after the proxy refused a
# connection points at the line that names it. No hint for a failure that names nothing
# hidden, for a path the host does not have either, for a command that succeeds, or with
# --quiet.
# shellcheck disable=SC1091 # resolved at run time
. "$(dirname "$0")/../lib/tap.sh"

cd "$T_PROJECT" || exit 1
mkdir -p "$HOME/src/lib" "$HOME/.ssh"
echo "library" >"$HOME/src/lib/file"
echo "key" >"$HOME/.ssh/id_test"

# cr ARGS...: cordon run --net isolated ARGS (the banner and the hint on stderr); $out, $rc.
cr() {
        out=$("$CORDON" run --net isolated "$@" 2>&1); rc=$?
}
hint_of() { printf '%s\n' "$out" | grep '^cordon: the command named\|^cordon: the proxy refused .* probably'; }
# no_hint DESCRIPTION: $out has no hint line.
no_hint() {
        local h
        h=$(hint_of)
        if [ -z "$h" ]; then ok "$1"; else not_ok "$1" "rc=$rc" "hint: $h"; fi
}

HIDDEN="cordon: the command named '~/src/lib', which the sandbox hides (HOME_ACCESS=tmpwrite: the home is a scratch directory): probably why it failed; to show it: --ro ~/src/lib"

plan 12

cr -- ls "$HOME/src/lib"
check "a command failing on a hidden home path gets the hint naming the fix" \
        "fail:$HIDDEN" "$([ "$rc" -ne 0 ] && echo fail || echo "rc=$rc"):$(hint_of)"

cr --ro "$HOME/src/lib" -- ls "$HOME/src/lib"
check "the fix it names shows the path" "0:file" "$rc:$(printf '%s\n' "$out" | grep -x file)"
no_hint "... and the command that now succeeds gets no hint"

cr -- sh -c 'cat ~/src/lib/file'
check "a path named in a sh -c script, ~ unexpanded, counts too" \
        "cordon: the command named '~/src/lib/file', which the sandbox hides (HOME_ACCESS=tmpwrite: the home is a scratch directory): probably why it failed; to show it: --ro ~/src/lib/file" \
        "$(hint_of)"

cr -- sh -c "ls $HOME/src/lib; true"
check "a successful command exits 0" 0 "$rc"
no_hint "... and gets no hint, though it named a hidden path"

cr --quiet -- ls "$HOME/src/lib"
no_hint "--quiet leaves the hint out"

cr -- ls /nonexistent-cordon-hint "$HOME/no-such-dir"
no_hint "a failure on paths the host does not have either gets no hint"

cr -- sh -c 'exit 3' /usr/bin
no_hint "a failure that names nothing hidden gets no hint"

cr -- cat "$HOME/.ssh/id_test"
check "a masked credential store is named, with where to look" \
        "cordon: the command named '~/.ssh/id_test', which the sandbox hides ('~/.ssh' is masked, from built-in default): probably why it failed; 'cordon config explain ~/.ssh/id_test' says why" \
        "$(hint_of)"

repo=$HOME/repo
mkdir -p "$repo" && git -C "$repo" init -q
if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
        # That backend cannot keep it (an explicit landlock backend wants --git-writable): the
        # write works, and the failure after it is not blamed on the file.
        out=$(cd "$repo" && "$CORDON" run --net isolated --git-writable -- \
                sh -c 'echo "# x" >> .git/config && exit 4' 2>&1); rc=$?
        check "landlock backend: .git/config is writable, and a failure after the write gets no hint" \
                "4:" "$rc:$(hint_of)"
else
        out=$(cd "$repo" && "$CORDON" run --net isolated -- sh -c 'echo x >> .git/config' 2>&1); rc=$?
        check "a write to the project's .git/config names --git-writable" \
                "cordon: the command named '.git/config', which the sandbox keeps read-only inside a writable directory (PROTECT_GIT_CONFIG): probably why it failed; to lift it: --git-writable" \
                "$(hint_of)"
fi

# The proxy's refusals: the line that names them comes first; the hint points at it.
out=$("$CORDON" run --net proxied --block '*' --git-writable -- python3 -c \
        'import urllib.request; urllib.request.urlopen("http://blocked.invalid/")' 2>&1); rc=$?
if [ "$rc" -eq 125 ]; then
        skip "proxied mode is not deliverable here: $(printf '%s\n' "$out" | tail -1)" \
                "a failure after the proxy refused a connection points at its line"
else
        check "a failure after the proxy refused a connection points at its line" \
                "cordon: the proxy refused 1 connection (blocked.invalid:80); allow a host with --allow-host HOST (--net-log FILE records each refusal and its rule)
cordon: the proxy refused 1 connection of the command (the line above): probably why it failed" \
                "$(printf '%s\n' "$out" | grep '^cordon: the proxy refused')"
fi
