#!/usr/bin/env bash
# Must still work: one banner line on stderr naming the backend (ns, or landlock when the suite
# runs under SANDBOX_BACKEND=landlock), the project, the home mode and the network, counting
# blocked variables without naming them; --quiet, -q and SANDBOX_QUIET=true drop it, but not the
# line saying the network fell back to another mode.
. "$(dirname "$0")/../lib/tap.sh"

export GITHUB_TOKEN=banner-s3cret-token AWS_SECRET_ACCESS_KEY=banner-s3cret-aws

plan 14
# The first start makes the project's stand-ins and says so in one line, once.
first=$(cd "$T_PROJECT" && "$CORDON" run -- true 2>&1 >/dev/null)
check "the first start says once what it created" "1" "$(grep -c '^cordon: created .*(they stay, for the next runs)$' <<<"$first")"
so=$(cd "$T_PROJECT" && "$CORDON" run -- echo out 2>"$T_TMP/stderr"); rc=$?
se=$(cat "$T_TMP/stderr")
check "the command's stdout is untouched" "0:out" "$rc:$so"
backend=${SANDBOX_BACKEND:-ns}
# One banner line, and under the landlock backend more: the default network (filtered) cannot
# be delivered without a network namespace, and a line says what was used instead (proxied,
# with Landlock ABI 4 for its port rule; isolated before that), proxied names its port, and a
# line names the protected files only the ns backend keeps read-only (the project's agent files).
# Under the ns backend the same fallback to proxied (two more lines) where pasta cannot run for
# this user (no tun device, as in containers, or one only root may open, as without udev):
# `cordon doctor` lists the modes by the launch's own probe.
ll_net=isolated
[ "$backend" = landlock ] && [ "$(python3 -c 'import ctypes
print(ctypes.CDLL(None).syscall(444, None, 0, 1))')" -ge 4 ] && ll_net=proxied
ns_net=filtered
"$CORDON" doctor --backend ns 2>/dev/null | grep -q '^  network modes here: .*filtered' || ns_net=proxied
want_lines=1
[ "$backend" = ns ] && [ $ns_net = proxied ] && want_lines=3
[ "$backend" = landlock ] && want_lines=3 && [ $ll_net = proxied ] && want_lines=4
check "exactly $want_lines line(s) on stderr" "$want_lines" "$(printf '%s\n' "$se" | grep -c .)"
case $se in
"cordon: backend=$backend profile=worktree layers=landlock,seccomp "*)
        ok "the banner names backend=$backend, the profile and the layers" ;;
*) not_ok "the banner names backend=$backend, the profile and the layers" "stderr: $se" ;;
esac
if [ "$backend" = landlock ]; then
        case $se in
        *"cordon: network mode filtered (from built-in default) cannot be delivered: "*"using $ll_net instead"*)
                ok "landlock: one line says the default network fell back to $ll_net, and why" ;;
        *) not_ok "landlock: one line says the default network fell back to $ll_net, and why" "stderr: $se" ;;
        esac
elif [ $ns_net = proxied ]; then
        case $se in
        *"cordon: network mode filtered (from built-in default) cannot be delivered: "*"using proxied instead"*)
                ok "ns, pasta unusable here: one line says the default network fell back to proxied, and why" ;;
        *) not_ok "ns, pasta unusable here: one line says the default network fell back to proxied, and why" "stderr: $se" ;;
        esac
else
        ok "ns: no network fallback line"
fi
gap="cordon: the landlock backend leaves protected files writable (the project's agent files"
want_gap=0
[ "$backend" = landlock ] && want_gap=1
check "only the landlock backend names the agent files it leaves writable" "$want_gap" \
        "$(printf '%s\n' "$se" | grep -cF "$gap")"
# The network delivered: the default filtered, or (no usable pasta here) the stricter proxied;
# the landlock backend has no network namespace and falls back to proxied (or isolated).
case $backend in landlock) nets=$ll_net ;; *) nets=$ns_net ;; esac
net_word=$(printf '%s' "$se" | sed -n 's/.* network=\([a-z]*\) .*/\1/p' | head -1)
case $se in
*"project=$T_PROJECT "*"home=tmpwrite"*"network="*)
        ;;
*) net_word= ;;
esac
case "|$nets|" in
*"|$net_word|"*)
        ok "the banner names project, home mode and network" ;;
*) not_ok "the banner names project, home mode and network" "stderr: $se" ;;
esac
case $se in
*GITHUB_TOKEN* | *AWS_SECRET* | *s3cret*)
        not_ok "no blocked variable name or value in the banner" "stderr: $se" ;;
*) ok "no blocked variable name or value in the banner" ;;
esac
n=$(printf '%s\n' "$se" | sed -n 's/.*env-blocked=\([0-9]*\).*/\1/p')
if [ -n "$n" ] && [ "$n" -ge 2 ]; then
        ok "the banner counts the blocked variables ($n)"
else
        not_ok "the banner counts the blocked variables" "stderr: $se"
fi
# Quiet drops the banner, never the line saying the network is not the one asked for: where the
# default filtered falls back (the landlock backend, or no usable pasta), that line alone.
quiet_want=
quiet_what="nothing is on stderr"
if [ "$backend" = landlock ] || [ $ns_net = proxied ]; then
        quiet_want="fallback:$nets"
        quiet_what="only the network's fallback to $nets is on stderr"
fi
quiet_got() {
        local se
        se=$(cat "$T_TMP/stderr")
        [ -z "$se" ] && return
        case $se in
        "cordon: network mode filtered (from built-in default) cannot be delivered: "*"using $nets instead")
                [ "$(printf '%s\n' "$se" | grep -c .)" = 1 ] && echo "fallback:$nets" && return ;;
        esac
        printf '%s' "$se"
}
for q in --quiet -q; do
        so=$(cd "$T_PROJECT" && "$CORDON" run "$q" -- echo out 2>"$T_TMP/stderr"); rc=$?
        check "$q: the command runs and $quiet_what" "0:out:$quiet_want" "$rc:$so:$(quiet_got)"
done
so=$(cd "$T_PROJECT" && SANDBOX_QUIET=true "$CORDON" run -- echo out 2>"$T_TMP/stderr"); rc=$?
check "SANDBOX_QUIET=true: the command runs and $quiet_what" "0:out:$quiet_want" "$rc:$so:$(quiet_got)"
# Where pasta cannot run (root: a private mount namespace without /dev/net/tun, as a container
# has), the ns backend's fallback is said before anything runs: the banner names proxied.
if [ "$(id -u)" = 0 ]; then
        so=$(cd "$T_PROJECT" && unshare -m --propagation private sh -c \
                'mount -t tmpfs -o mode=0755 none /dev/net && exec "$@"' no-tun \
                "$CORDON" run --backend ns -- echo out 2>"$T_TMP/stderr"); rc=$?
        # (Under the landlock suite this is the first ns start here: its line of what it
        # created is not what is counted.)
        se=$(grep -v '^cordon: created ' "$T_TMP/stderr")
        if [ "$rc:$so" = 0:out ] && [ "$(printf '%s\n' "$se" | grep -c .)" = 3 ] &&
                [[ $se == "cordon: backend=ns "*" network=proxied "* ]] &&
                [[ $se == *"cordon: network mode filtered (from built-in default) cannot be delivered: pasta needs /dev/net/tun, which this host lacks"*"using proxied instead"* ]] &&
                [[ $se == *"cordon: network=proxied: only through the proxy"* ]]; then
                ok "no tun device: three lines, the banner names proxied and one line says why"
        else
                not_ok "no tun device: three lines, the banner names proxied and one line says why" \
                        "rc=$rc stdout=$so" "stderr: $se"
        fi
else
        ok "no tun device: three lines, the banner names proxied and one line says why # SKIP needs root to hide /dev/net/tun in a private mount namespace"
fi
so=$(cd "$T_PROJECT" && SANDBOX_QUIET=yes "$CORDON" run -- echo out 2>"$T_TMP/stderr"); rc=$?
se=$(cat "$T_TMP/stderr")
if [ "$rc" = 2 ] && [ -z "$so" ] && [[ $se == *"SANDBOX_QUIET='yes'"* ]]; then
        ok "a bad SANDBOX_QUIET is a usage error naming it"
else
        not_ok "a bad SANDBOX_QUIET is a usage error naming it" "rc=$rc" "$se"
fi
