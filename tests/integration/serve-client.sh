#!/usr/bin/env bash
# cordon session (issue 26), the session API's client, against a real cordon-serve on a private
# socket: create (labels, a mount or the landlock backend's refusal of one, limits, a snapshot
# to start from), ls, exec (output, exit codes, stdin, timeouts as timeout(1)'s 124, --json,
# text that is not UTF-8), snapshot, suspend, resume, rm; the daemon's errors as one line
# "cordon session: KIND: MESSAGE" with exit 1, usage errors with 2; attach under tmux (keys,
# the pane read back, a resize seen by `stty size` inside, the exit code, the terminal mode
# restored, a SIGTERM that hangs the process up) and an attach whose daemon is killed with
# SIGKILL and restarted (its output reconnected with the last seq: nothing lost or repeated);
# examples/serve-client.py end to end; and where `cordon session` and `cordon serve` find their
# programs (beside cordon, in a build tree, never elsewhere).
. "$(dirname "$0")/../lib/tap.sh"

SERVE=${CORDON_SERVE:?CORDON_SERVE: the cordon-serve binary}
RUN=$T_TMP/run STATE=$T_TMP/state
mkdir -m 0700 "$RUN" "$STATE"
export XDG_RUNTIME_DIR=$RUN XDG_STATE_HOME=$STATE
SOCK=$RUN/cordon/serve.sock
LOG=$T_TMP/serve.log
daemon=''
TMUX_SOCK=$T_TMP/tmux.sock

# The sessions outlive the daemon by design: each is ended here by its holder's pid (the store's
# records name them), then the daemon.
cleanup() {
        local p
        for p in $(cat "$STATE"/cordon/sessions/*/record.json 2>/dev/null |
                python3 -c 'import json, sys
for l in sys.stdin.read().replace("}{", "}\n{").splitlines():
    print(json.loads(l)["holder_pid"])' 2>/dev/null); do
                kill -TERM "$p" 2>/dev/null
        done
        [ -n "$daemon" ] && kill "$daemon" 2>/dev/null
        tmux -S "$TMUX_SOCK" kill-server 2>/dev/null
        return 0
}
trap cleanup EXIT

start_daemon() {
        "$SERVE" 2>>"$LOG" &
        daemon=$!
        for _ in $(seq 200); do
                curl -sf -o /dev/null --max-time 2 --unix-socket "$SOCK" http://cordon/v1/capabilities &&
                        return 0
                sleep 0.1
        done
        return 1
}
# S ARGS...: cordon session ARGS; stdout in $out, stderr in $err, status in $rc.
S() {
        out=$(cd "$T_PROJECT" && "$CORDON" session "$@" 2>"$T_TMP/err")
        rc=$?
        err=$(cat "$T_TMP/err")
}
J() { python3 -c "import json, sys; d = json.loads(sys.argv[2]); print($1)" "$1" "$2" 2>&1; }

plan 56

if start_daemon; then ok "cordon-serve answers on a private socket"; else
        not_ok "cordon-serve answers on a private socket" "$(tail -5 "$LOG")"
fi

# --- create, ls ---
S create --id s1 --label team=ml
check "create --id s1: prints the id, exit 0" "0|s1|" "$rc|$out|$err"
S create --json --net none --wall-time 1
check "create --json: a SandboxSession, running, a minted id" "0|running|True" \
        "$rc|$(J 'd["state"]' "$out")|$(J 'sorted(d) == ["backend", "id", "metadata", "mounts", "state"] and len(d["id"]) > 0' "$out")"
s2=$(J 'd["id"]' "$out")
S create --id s1
check "create of an id that exists: exit 1, one line lifecycle: ..." \
        "1||cordon session: lifecycle: sandbox session \`s1\` already exists" "$rc|$out|$err"
S ls
backend=$(on_backend ns landlock)
check_like "ls: a table, s1 running on this backend" \
        "ID * STATE * BACKEND * CREATED * LABELS*s1 * running * $backend *" "$(tr '\n' ' ' <<<"$out")"
S ls --json
check "ls --json: both sessions" "0|$(printf '%s\n' s1 "$s2" | sort | paste -sd' ')" \
        "$rc|$(J '" ".join(sorted(s["id"] for s in d))' "$out")"
S --socket "$SOCK" ls
check "--socket PATH before the command reaches the same daemon" "0" "$rc"
S ls --socket "$T_TMP/nothing.sock"
check "a socket nobody listens on: exit 1, one line naming it" \
        "1|cordon session: cannot connect to cordon-serve at '$T_TMP/nothing.sock': No such file or directory (is 'cordon serve' running?)" \
        "$rc|$err"

# --- exec ---
S exec s1 -- sh -c 'echo out; echo err >&2; exit 3'
check "exec: the command's stdout and stderr as ours, its exit code as ours" "3|out|err" \
        "$rc|$out|$err"
S exec s1 sh -c 'kill -9 $$'
check "exec: a command killed by SIGKILL exits 137, as in a shell" "137" "$rc"
S exec s1 --json -- sh -c 'echo x; exit 2'
check "exec --json: the ExecResult, and the exit code as ours" \
        '2|{"stdout":"x\n","stderr":"","exit_code":2,"timed_out":false}' "$rc|$out"
printf 'line one\nline two\n' >"$T_TMP/in.txt"
S exec s1 --stdin-file "$T_TMP/in.txt" -- cat
check "exec --stdin-file FILE: the file is the command's input" "0|line one
line two" "$rc|$out"
out=$(printf 'piped\n' | "$CORDON" session exec s1 --stdin-file - -- cat 2>&1)
check "exec --stdin-file -: ours is" "piped" "$out"
S exec s1 -- cat
check "exec without --stdin-file: the command reads nothing (no hang)" "0|" "$rc|$out"
printf 'a\377b' >"$T_TMP/bin.txt"
S exec s1 --stdin-file "$T_TMP/bin.txt" -- cat
check "exec --stdin-file of bytes that are not UTF-8: refused, not sent changed (exit 1)" \
        "1|cordon session: --stdin-file: '$T_TMP/bin.txt' is not UTF-8 text (ExecRequest.stdin is a string)" \
        "$rc|$err"
S exec s1 -- printf 'a\377b'
check "exec: output that is not UTF-8 comes as U+FFFD, not dropped" "61efbfbd62" \
        "$(printf '%s' "$out" | od -An -tx1 | tr -d ' \n')"
t0=$(date +%s)
S exec s1 --timeout 1 -- sleep 30
check "exec --timeout 1 of sleep 30: exit 124 (timeout(1)'s), within seconds" "124|yes" \
        "$rc|$([ $(($(date +%s) - t0)) -lt 15 ] && echo yes)"
S exec "$s2" -- sleep 30
check "create --wall-time 1: an exec without its own timeout ends at 1 s, 124" "124" "$rc"
S exec s1 -- mkdir -p sub
S exec s1 --cwd sub --env GREETING='hi there' -- sh -c 'echo "$GREETING"; pwd'
check_like "exec --env NAME=VALUE --cwd DIR (below the session's root)" "0|hi there?*/sub?" \
        "$rc|$(tr '\n' '?' <<<"$out")"
S exec nope -- true
check "exec in a session that does not exist: exit 1, session_not_found" \
        "1|cordon session: session_not_found: sandbox session \`nope\` was not found" "$rc|$err"
S exec s1 --env 1A=x -- true
check_like "exec with an invalid variable name: exit 1, the daemon's invalid_request" \
        "1|cordon session: invalid_request: env.1A: *" "$rc|$err"
S exec s1
check "exec without a command: a usage error, exit 2" \
        "2|cordon session: no command given; see 'cordon session exec --help'" "$rc|$err"
S create --memory 0
check "create --memory 0: a usage error, exit 2" \
        "2|cordon session: --memory: '0' is not a whole number from 1 to 4294967295; see 'cordon session create --help'" \
        "$rc|$err"

# --- mounts: bound on the ns backend; the landlock backend has no mount namespace ---
mkdir -p "$T_TMP/data" && echo from-host >"$T_TMP/data/f"
S create --id m1 --mount "$T_TMP/data:/mnt/data:ro"
if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
        check_like "create --mount SRC:DST:ro on the landlock backend: exit 1, unsupported" \
                "1|cordon session: unsupported: * (backend landlock, operation mount)" "$rc|$err"
        S ls --json
        check "... and no session m1 was left" "False" "$(J "'m1' in [s['id'] for s in d]" "$out")"
else
        check "create --mount SRC:DST:ro: exit 0" "0|m1|" "$rc|$out|$err"
        S exec m1 -- sh -c 'cat /mnt/data/f; touch /mnt/data/g 2>/dev/null || echo refused'
        check "--mount SRC:DST:ro: the host directory is read inside, read-only" "0|from-host
refused" "$rc|$out"
fi

# --- snapshot, create --from-snapshot ---
S exec s1 -- sh -c 'echo kept > "${TMPDIR:-/tmp}/kept.txt"'
S snapshot s1
snap=$out
check_like "snapshot: prints the snapshot's id, exit 0" "0|?*" "$rc|$snap"
S create --id s3 --from-snapshot "$snap"
S exec s3 -- sh -c 'cat "${TMPDIR:-/tmp}/kept.txt"'
check "create --from-snapshot ID: the session starts with the snapshot's files" "0|kept" \
        "$rc|$out"
S create --from-snapshot no-such-snapshot
check_like "create --from-snapshot of an unknown id: exit 1, invalid_request" \
        "1|cordon session: invalid_request: *" "$rc|$err"
S snapshot s1 --json
check "snapshot --json: a SandboxSnapshot of s1" "0|s1" "$rc|$(J 'd["session_id"]' "$out")"

# --- suspend, resume ---
S suspend s1
check "suspend: exit 0, nothing printed" "0|" "$rc|$out"
S ls --json
check "ls: s1 is suspended" "suspended" "$(J '[s["state"] for s in d if s["id"] == "s1"][0]' "$out")"
S resume s1 --json
check "resume --json: s1 is running again" "0|running" "$rc|$(J 'd["state"]' "$out")"
S exec s1 -- echo back
check "exec after resume" "0|back" "$rc|$out"

# --- rm ---
S rm "$s2"
check "rm: exit 0, nothing printed" "0|" "$rc|$out"
S ls --json
check "ls: the removed session is gone" "False" "$(J "'$s2' in [s['id'] for s in d]" "$out")"
S rm "$s2"
check "rm of a removed session: exit 1, session_not_found" \
        "1|cordon session: session_not_found: sandbox session \`$s2\` was not found" "$rc|$err"

# --- attach under tmux, as a user at a terminal ---
T() { tmux -S "$TMUX_SOCK" "$@"; }
screen() { T capture-pane -p -J -S -200 2>/dev/null | tr -d '\r'; }
wait_for() { # wait_for REGEX [SECONDS]
        local i
        for ((i = 0; i < ${2:-15} * 10; i++)); do
                screen | grep -Eq -- "$1" && return 0
                sleep 0.1
        done
        return 1
}
type_line() { T send-keys -l -- "$1" && T send-keys Enter; }
export CORDON
T new-session -d -x 100 -y 30 "cd '$T_PROJECT' && exec bash --norc --noprofile"
wait_for '[$#] ?$' || echo "# the outer shell did not start: $(screen)"
type_line "PS1='OUTER\$ '"
wait_for '^OUTER\$' || echo "# the outer shell did not take its prompt: $(screen)"
type_line 'stty -g > "$XDG_RUNTIME_DIR/stty.before"; echo before-saved'
wait_for '^before-saved'
type_line "\"\$CORDON\" session attach --env PS1='INNER> ' s1 -- /bin/sh; echo attach-rc=\$?"
if wait_for '^INNER> ' 20; then ok "attach: the shell's prompt appears in the pane"; else
        not_ok "attach: the shell's prompt appears in the pane" "$(screen | tail -5)"
fi
type_line 'echo $((6 * 7))-keys; echo abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ'
wait_for '^ABCDEFGHIJ|^abcdef' 10
check "attach: keys reach the shell in order, its output comes back" \
        "42-keys abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ" \
        "$(screen | grep -E '^(42-keys|abcdefghij[a-zA-Z0-9]*)$' | paste -sd' ')"
type_line 'stty size'
wait_for '^30 100$' 10
check "attach: the process's terminal has the pane's size" "30 100" "$(screen | grep -E '^[0-9]+ [0-9]+$' | tail -1)"
T resize-window -x 80 -y 24
sleep 0.5
type_line 'stty size'
wait_for '^24 80$' 10
check "attach: a resized pane (SIGWINCH) resizes the process's terminal" "24 80" \
        "$(screen | grep -E '^[0-9]+ [0-9]+$' | tail -1)"
type_line 'exit 7'
wait_for '^attach-rc=' 15
check "attach: exits with the process's exit code" "attach-rc=7" "$(screen | grep '^attach-rc=' | tail -1)"
type_line 'stty -g > "$XDG_RUNTIME_DIR/stty.after"; echo after-saved'
wait_for '^after-saved'
check "attach: the terminal's mode is restored" "$(cat "$RUN/stty.before" 2>&1)" \
        "$(cat "$RUN/stty.after" 2>&1)"

# SIGTERM to the client: it dies of it, its terminal restored, and the process gets a hangup.
T send-keys C-l
type_line "\"\$CORDON\" session attach s1 -- sh -c 'trap \"echo hup > hupped; exit 0\" HUP; echo waiting; while :; do sleep 0.1; done'; echo term-rc=\$?"
wait_for '^waiting' 20
client=$(pgrep -P "$(T list-panes -F '#{pane_pid}')" -f 'cordon-session attach' | head -1)
[ -n "$client" ] && kill -TERM "$client"
# Its own marker: tmux keeps a cleared screen in its history, where the first attach's line stays.
wait_for '^term-rc=' 15
check "attach: SIGTERM ends it by that signal (143)" "term-rc=143" "$(screen | grep '^term-rc=' | tail -1)"
type_line 'stty -g > "$XDG_RUNTIME_DIR/stty.after2"; echo after2-saved'
wait_for '^after2-saved'
check "attach: ... with the terminal's mode restored" "$(cat "$RUN/stty.before" 2>&1)" \
        "$(cat "$RUN/stty.after2" 2>&1)"
for _ in $(seq 50); do S exec s1 -- cat hupped; [ "$out" = hup ] && break; sleep 0.1; done
check "attach: ... and the process got SIGHUP, as from a terminal that closed" "hup" "$out"
T kill-server 2>/dev/null

# --- attach without a terminal, and to no session ---
# The process still gets a terminal, which echoes the input; an interactive sh's prompt could
# land before its output (the echo and the prompt race), so the inner sh has none.
printf 'echo piped-$((40 + 2))\n' |
        "$CORDON" session attach s1 -- sh -c 'PS1= sh; echo "input-ended=$?"; exit 3' >"$T_TMP/piped.out" 2>&1
rc=$?
out=$(tr -d '\r' <"$T_TMP/piped.out")
check "attach with input from a pipe: its bytes reach the process, then its end; its exit code" \
        "3|piped-42|input-ended=0" "$rc|$(grep -x 'piped-42' <<<"$out")|$(grep -x 'input-ended=.*' <<<"$out")"
S attach nope
check "attach to a session that does not exist: exit 1, session_not_found" \
        "1|cordon session: session_not_found: sandbox session \`nope\` was not found" "$rc|$err"

# --- attach reconnects: the daemon killed with SIGKILL and restarted mid-stream ---
"$CORDON" session attach s1 -- sh -c 'i=0; while [ $i -lt 50 ]; do i=$((i + 1)); echo "n$i"; sleep 0.1; done; exit 5' \
        </dev/null >"$T_TMP/attach.out" 2>"$T_TMP/attach.err" &
client=$!
sleep 1.5
kill -KILL "$daemon"
wait "$daemon" 2>/dev/null
sleep 0.5
start_daemon || echo "# the daemon did not come back: $(tail -3 "$LOG")"
wait "$client"
rc=$?
check "attach across a daemon killed and restarted: every line once, in order, exit 5" \
        "5|$(seq 50 | sed 's/^/n/' | paste -sd' ')|" \
        "$rc|$(tr -d '\r' <"$T_TMP/attach.out" | paste -sd' ')|$(cat "$T_TMP/attach.err")"

# --- the Python example, end to end ---
out=$(timeout 120 python3 "$T_SRC/examples/serve-client.py" --socket "$SOCK" 2>&1)
rc=$?
check "examples/serve-client.py: exit 0" "0" "$rc"
check "... its exec: the ExecResult with the stdin it sent" \
        'exec: {"exit_code": 3, "stderr": "", "stdout": "hello from the sandbox\na line on stdin\n", "timed_out": false}' \
        "$(grep '^exec: ' <<<"$out")"
check "... its stream dropped after seq 3 and resumed with after_seq: lines 1-20 once each, then exit 7" \
        "yes|$(seq 20 | sed 's/^/line /' | paste -sd' ')|exit code 7, timed out: False" \
        "$(grep -q 'dropping the connection after seq 3, reconnecting with after_seq=3' <<<"$out" && echo yes)|$(sed -n 's/^  seq [0-9]* stdout: //p' <<<"$out" | paste -sd' ')|$(sed -n 's/^  seq [0-9]*: //p' <<<"$out")"
sid=$(sed -n 's/^created session \([^ ]*\) .*/\1/p' <<<"$out")
S ls --json
check "... and it deleted its session" "yes|False" \
        "$([ -n "$sid" ] && echo yes)|$(J "'$sid' in [s['id'] for s in d]" "$out")"

# --- help, and where cordon finds its programs ---
S --help
check_like "cordon session --help: the commands, exit 0" "0|Usage: cordon session *attach*snapshot*" \
        "$rc|$(tr '\n' ' ' <<<"$out")"
check_like "cordon help session: the same" "Usage: cordon session *" "$("$CORDON" help session 2>&1)"
# A copy of cordon in a build tree's layout finds the programs in src/serve; one elsewhere never
# looks at a ../serve beside it (stand-ins that say where they are stand for the programs).
for d in "$T_TMP/tree/src/cli" "$T_TMP/other/bin"; do
        mkdir -p "$d" "$d/../serve" && cp "$CORDON" "$d/cordon"
        for p in cordon-serve cordon-session; do
                printf '#!/bin/sh\necho "stand-in %s $*"\n' "$p" >"$d/../serve/$p"
                chmod +x "$d/../serve/$p"
        done
done
check "in a build tree (src/cli/cordon): session and serve run src/serve's programs with the arguments" \
        "stand-in cordon-session ls -x|stand-in cordon-serve --socket y" \
        "$("$T_TMP/tree/src/cli/cordon" session ls -x 2>&1)|$("$T_TMP/tree/src/cli/cordon" serve --socket y 2>&1)"
out=$("$T_TMP/other/bin/cordon" session --version 2>&1)
check_like "elsewhere (bin/cordon), ../serve is not looked at: the installed program or its error" \
        "@(cordon-session *|cordon: cannot run '*/cordon-session': *)" "$out"
