#!/usr/bin/env bash
# Sessions (cordon/session.h), through the public API by tests/helpers/session-probe: a live
# sandbox running many commands, each with its own cwd, environment, stdio or pty and timeout;
# suspend and resume (nothing runs meanwhile, not even a fork loop or a process with a thousand
# children; cycles under writes lose nothing); an attach a running command sees, with the
# refusals of a start (the landlock backend: -EOPNOTSUPP); snapshot, free and restore into a
# new session giving an equal tree; and the holder's SIGKILL leaving nothing behind. Both
# backends, both users.
. "$(dirname "$0")/../lib/tap.sh"

probe() { # probe TEST [ARG]: its "ok:" lines as TAP, its failure as one not ok
        local out rc
        out=$(cd "$T_PROJECT" && timeout 120 "$SESSION_PROBE" "$@" 2>&1); rc=$?
        while IFS= read -r line; do
                case $line in "ok: "*) ok "${line#ok: }" ;; esac
        done <<<"$out"
        if [ $rc -ne 0 ]; then
                not_ok "session-probe $* exited $rc" "$(grep -v '^cordon:' <<<"$out" | tail -5)"
        fi
}

mkdir -p "$HOME/.ssh" # a credential store the session hides, for the attach's refusals
plan $((20 + $(on_backend 4 1)))
probe concurrent 200 # 1
probe per-exec       # 5
probe pty            # 1
probe suspend        # 2
probe suspend-unscoped # 3: the Landlock layer off (landlock: the supervisor's walk)
probe cycles 50      # 1
probe forkloop       # 1
probe wide 1000      # 1
probe holder-killed  # 1
probe attach         # 4 (ns) or 1 (landlock)
# The same session with HOME a link to a directory of another name, .ssh in it.
mkdir -p "$T_TMP/real-home/.ssh" && ln -s "$T_TMP/real-home" "$T_TMP/linked-home"
HOME=$T_TMP/linked-home probe attach-linked-home # 1
probe snapshot       # 1
probe start          # 1
# 1 + 5 + 1 + 2 + 3 + 1 + 1 + 1 + 1 + 1 + 1 + 1 = 19 besides the attach, and one for the whole: the
# probe ran as this user
case $(id -u) in
0) ok "ran as root" ;;
*) ok "ran as an unprivileged user ($(id -un))" ;;
esac
