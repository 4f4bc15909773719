#!/usr/bin/env bash
# cordon-serve's sessions (issue 26) over its socket with curl --unix-socket: every route of the
# contract and every error kind with its status, the answers against harn's serde shapes, 200
# concurrent execs, an output stream that reconnects with after_seq and loses nothing, the
# daemon killed with SIGKILL and restarted while sessions run (re-adopted: same ids, they
# answer), a dead session's leftovers removed at the restart, an exec's secret environment value
# and stdin found nowhere on disk or in the log, a full disk during a snapshot leaving no partial
# archive, and a sandboxed process handed the socket refused (the same curl outside served).
# Both backends, both users.
. "$(dirname "$0")/../lib/tap.sh"

SERVE=${CORDON_SERVE:?CORDON_SERVE: the cordon-serve binary}
CHECK=(python3 "$(dirname "$0")/../helpers/serve-check.py")
RUN=$T_TMP/run STATE=$T_TMP/state
mkdir -m 0700 "$RUN" "$STATE"
SOCK=$RUN/cordon/serve.sock
LOG=$T_TMP/serve.log
daemon='' extra_daemons=() mounted=''

# holders: the pids the store's records name (every session's holder, live or not).
holders() {
        cat "$1"/cordon/sessions/*/record.json 2>/dev/null |
                python3 -c 'import json,sys
for l in sys.stdin.read().replace("}{", "}\n{").splitlines():
    print(json.loads(l)["holder_pid"])'
}
cleanup() {
        # The sessions outlive the daemon by design: each is ended here, by its holder's pid.
        local s p
        for s in "$STATE" "$T_TMP/cap-state" "$T_TMP/small-state" "${T_SMALL_FS:-/nonexistent}"; do
                for p in $(holders "$s"); do kill -TERM "$p" 2>/dev/null; done
        done
        [ -n "$daemon" ] && kill "$daemon" 2>/dev/null
        [ ${#extra_daemons[@]} -gt 0 ] && kill "${extra_daemons[@]}" 2>/dev/null
        sleep 0.5
        [ -n "$mounted" ] && umount "$mounted" 2>/dev/null
        [ -n "${T_SMALL_FS:-}" ] && rm -rf "${T_SMALL_FS:?}"/* 2>/dev/null
        return 0
}
trap cleanup EXIT

# start_daemon [OPTION...]: cordon-serve on $SOCK, until it answers (at most 20 s).
start_daemon() {
        XDG_RUNTIME_DIR=$RUN XDG_STATE_HOME=$STATE "$SERVE" "$@" 2>>"$LOG" &
        daemon=$!
        for _ in $(seq 200); do
                curl -sf -o /dev/null --max-time 2 --unix-socket "$SOCK" http://cordon/v1/capabilities &&
                        return 0
                sleep 0.1
        done
        return 1
}
# req METHOD PATH [BODY]: "STATUS BODY" of a request on the socket; the body in $T_TMP/body.
req() {
        local m=$1 p=$2
        shift 2
        curl -sS --max-time 120 -o "$T_TMP/body" -w '%{http_code}' --unix-socket "$SOCK" -X "$m" \
                ${1+--data-binary "$1"} "http://cordon$p" >"$T_TMP/code" 2>"$T_TMP/curl.err"
        echo "$(cat "$T_TMP/code") $(cat "$T_TMP/body")"
}
# status_kind METHOD PATH [BODY]: "STATUS KIND" of an error answer ("STATUS -" for another).
status_kind() {
        local out
        out=$(req "$@")
        echo "${out%% *} $("${CHECK[@]}" get 'd["error"]["kind"] if isinstance(d, dict) and "error" in d else "-"' "$T_TMP/body" 2>/dev/null)"
}
shape() { "${CHECK[@]}" shape "$1" "$T_TMP/body"; }
get() { "${CHECK[@]}" get "$1" "$T_TMP/body"; }
b64() { printf '%s' "$1" | base64 -w0; }

plan 92

start_daemon && ok "the daemon answers" || not_ok "the daemon answers" "$(tail -5 "$LOG")"

# --- capabilities ---
req GET /v1/capabilities >/dev/null
check "GET /v1/capabilities: SandboxCapabilities" ok "$(shape caps)"
check "this host delivers sessions, snapshots, resume and idle suspend: all true" \
        "True True True True" \
        "$(get 'd["local_process_sandbox"], d["snapshot"], d["resume"], d["suspend_on_idle"]' | tr -d '(),')"

# --- POST /v1/sessions: a full spec, "type" for "mode", durations in both forms ---
spec='{"session_id":"s1","labels":{"team":"t","a":"b"},"network_policy":{"type":"unrestricted"},"mounts":[],"limits":{"wall_time":30,"cpu_count":null,"memory_mb":null,"idle_timeout":{"secs":600,"nanos":0}}}'
out=$(req POST /v1/sessions "$spec")
check "POST /v1/sessions: 201" 201 "${out%% *}"
check "... a SandboxSession" ok "$(shape session)"
check "... its id and state" "s1 running" "$(get 'd["id"] + " " + d["state"]')"
check "... /mnt/memory read-only and /mnt/session/outputs read-write, their host paths made" \
        "read_only read_write True True" \
        "$(get '" ".join([m["access"] for m in d["mounts"]] + [str(__import__("os").path.isdir(m["host_path"])) for m in d["mounts"]])')"
check_like "... metadata names the session root" "$STATE/cordon/sessions/*/root" "$(get 'd["metadata"]["session_root"]')"
out=$(req POST /v1/sessions '{}')
check_like "POST /v1/sessions without an id: 201 with a minted one" \
        "201 ????????-????-4???-????-????????????" "${out%% *} $(get 'd["id"]')"
anon=$(get 'd["id"]')
req GET /v1/sessions >/dev/null
check "GET /v1/sessions: [SandboxSession] with both" "ok $anon s1" \
        "$(shape sessions) $(get '" ".join(sorted(s["id"] for s in d))')"
out=$(req GET /v1/sessions/s1)
check "GET /v1/sessions/s1: 200, the session" "200 s1" "${out%% *} $(get 'd["id"]')"

# --- exec ---
out=$(req POST /v1/sessions/s1/exec '{"command":"sh","args":["-c","echo out; echo err >&2; exit 3"]}')
check "exec: ExecResult, exact" '200 {"stdout":"out\n","stderr":"err\n","exit_code":3,"timed_out":false}' "$out"
out=$(req POST /v1/sessions/s1/exec '{"command":"sh","args":["-c","printf %s \"$V\"; cat"],"env":{"V":"vv"},"stdin":"in"}')
check "exec with env and stdin" "200 vvin" "${out%% *} $(get 'd["stdout"]')"
out=$(req POST /v1/sessions/s1/exec '{"command":"sleep","args":["20"],"timeout":1}')
check "exec with a timeout in plain seconds: timed_out" "200 True" "${out%% *} $(get 'd["timed_out"]')"
req POST /v1/sessions '{"session_id":"w","limits":{"wall_time":{"secs":1,"nanos":0}}}' >/dev/null
out=$(req POST /v1/sessions/w/exec '{"command":"sleep","args":["20"]}')
check "limits.wall_time bounds an exec without a timeout" "200 True" "${out%% *} $(get 'd["timed_out"]')"

# --- mounts ---
if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
        out=$(req POST /v1/sessions/s1/mounts '{"source":"","target":"/mnt/extra","access":"read_write"}')
        check "mounts (landlock): 501 unsupported, backend landlock, operation mount" \
                "501 unsupported landlock mount ok" \
                "${out%% *} $(get 'd["error"]["kind"], d["error"]["backend"], d["error"]["operation"]' | tr -d "(),'") $(shape error)"
        ok "mounts (landlock): no mount to write through # nothing to check"
else
        out=$(req POST /v1/sessions/s1/mounts '{"source":"","target":"/mnt/extra","access":"read_write"}')
        check "mounts: 200, the session with /mnt/extra read-write" "200 read_write" \
                "${out%% *} $(get '[m["access"] for m in d["mounts"] if m["target"] == "/mnt/extra"][0]')"
        out=$(req POST /v1/sessions/s1/exec '{"command":"sh","args":["-c","echo x >/mnt/extra/f && cat /mnt/extra/f"]}')
        check "... the running session writes through it" "200 x" "${out%% *} $(get 'd["stdout"].strip()')"
fi

# --- network policy ---
out=$(req POST /v1/sessions '{"session_id":"n","network_policy":{"mode":"limited","allowed_hosts":["example.com"]}}')
check "a session with a limited network policy: 201" 201 "${out%% *}"
check "PUT network-policy weaker (unrestricted): 422 network_policy" "422 network_policy" \
        "$(status_kind PUT /v1/sessions/n/network-policy '{"mode":"unrestricted"}')"
out=$(req PUT /v1/sessions/n/network-policy '{"mode":"limited","allowed_hosts":[]}')
check "PUT network-policy deny-all: 200, a SandboxSession" "200 ok" "${out%% *} $(shape session)"

# --- suspend, resume ---
out=$(req POST /v1/sessions/s1/suspend)
check "suspend: 200, state suspended" "200 suspended" "${out%% *} $(get 'd["state"]')"
out=$(req POST /v1/sessions/s1/resume)
check "resume: 200, state running" "200 running" "${out%% *} $(get 'd["state"]')"

# --- processes ---
out=$(req POST /v1/sessions/s1/processes '{"command":"sh","args":["-c","read l; echo got:$l"]}')
check_like "POST processes: 200 {\"process_id\": ...}" '200 {"process_id":"p*"}' "$out"
pid=$(get 'd["process_id"]')
out=$(req POST "/v1/sessions/s1/processes/$pid/stdin" "{\"data\":\"$(b64 $'hello\n')\",\"eof\":true}")
check "stdin with eof: 200" "200 {}" "$out"
curl -sS --max-time 60 -D "$T_TMP/headers" --unix-socket "$SOCK" "http://cordon/v1/sessions/s1/processes/$pid/output" >"$T_TMP/p1.ndjson"
check "the output stream: NDJSON" "application/x-ndjson" \
        "$(tr -d '\r' <"$T_TMP/headers" | sed -n 's/^[Cc]ontent-[Tt]ype: //p')"
check "... the process's output, then its exit" "got:hello|exit_code 0" \
        "$("${CHECK[@]}" stream "$T_TMP/p1.ndjson" 2>"$T_TMP/end" | tr -d '\n')|$(cat "$T_TMP/end")"
req POST /v1/sessions/s1/processes '{"command":"sleep","args":["100"]}' >/dev/null
pid=$(get 'd["process_id"]')
req GET /v1/sessions/s1/processes >/dev/null
check "GET processes: the list, the sleep running" "ok True" \
        "$(shape processes) $(get "[p['running'] for p in d if p['process_id'] == '$pid'][0]")"
check "signal TERM: 200" "200 {}" "$(req POST "/v1/sessions/s1/processes/$pid/signal" '{"signal":"TERM"}')"
curl -sS --max-time 60 --unix-socket "$SOCK" "http://cordon/v1/sessions/s1/processes/$pid/output" >"$T_TMP/p2.ndjson"
check "... it ends with 143" "exit_code 143" "$("${CHECK[@]}" stream "$T_TMP/p2.ndjson" 2>&1 >/dev/null)"
check "resize of a process without a pty: 409 lifecycle" "409 lifecycle" \
        "$(status_kind POST "/v1/sessions/s1/processes/$pid/resize" '{"rows":30,"cols":90}')"
req POST /v1/sessions/s1/processes '{"command":"sh","args":["-c","sleep 1; stty size"],"pty":true}' >/dev/null
pid=$(get 'd["process_id"]')
check "resize of a pty: 200" "200 {}" "$(req POST "/v1/sessions/s1/processes/$pid/resize" '{"rows":33,"cols":99}')"
curl -sS --max-time 60 --unix-socket "$SOCK" "http://cordon/v1/sessions/s1/processes/$pid/output" >"$T_TMP/p3.ndjson"
check "... stty inside sees it" "33 99" "$("${CHECK[@]}" stream "$T_TMP/p3.ndjson" 2>/dev/null | tr -d '\r\n')"

req POST /v1/sessions/s1/processes '{"command":"sh","args":["-c","sleep 4; echo late"]}' >/dev/null
pid=$(get 'd["process_id"]')
curl -sS --max-time 2 -D "$T_TMP/headers" -o /dev/null --unix-socket "$SOCK" \
        "http://cordon/v1/sessions/s1/processes/$pid/output" 2>/dev/null
check "a stream's 200 comes before its process writes anything" "HTTP/1.1 200 OK" \
        "$(head -n 1 "$T_TMP/headers" | tr -d '\r')"

# --- the stream reconnecting with after_seq: 1.3 MB of output, read in two connections ---
req POST /v1/sessions/s1/processes '{"command":"seq","args":["1","200000"]}' >/dev/null
pid=$(get 'd["process_id"]')
curl -sSN --max-time 60 --unix-socket "$SOCK" "http://cordon/v1/sessions/s1/processes/$pid/output" 2>/dev/null |
        head -n 5 >"$T_TMP/half1"
last=$(tail -n 1 "$T_TMP/half1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["seq"])')
sleep 1 # the first connection is gone; what it left unread was acknowledged to the holder
curl -sS --max-time 60 --unix-socket "$SOCK" "http://cordon/v1/sessions/s1/processes/$pid/output?after_seq=$last" >"$T_TMP/half2"
"${CHECK[@]}" stream "$T_TMP/half1" "$T_TMP/half2" >"$T_TMP/joined" 2>"$T_TMP/end"
seq 1 200000 >"$T_TMP/expected"
if cmp -s "$T_TMP/joined" "$T_TMP/expected" && [ "$(cat "$T_TMP/end")" = "exit_code 0" ]; then
        ok "a stream cut after seq $last and resumed with after_seq=$last loses nothing"
else
        not_ok "a stream cut after seq $last and resumed with after_seq=$last loses nothing" \
                "$(cat "$T_TMP/end")" "$(wc -c <"$T_TMP/joined") bytes of $(wc -c <"$T_TMP/expected")"
fi

# --- snapshots ---
req POST /v1/sessions/s1/exec '{"command":"sh","args":["-c","echo kept >\"${TMPDIR:-/tmp}/mark\"; echo work >work.txt; echo out >\"$HARN_OUTPUTS_DIR/o.txt\""]}' >/dev/null
out=$(req POST /v1/sessions/s1/snapshot)
check "POST snapshot: 200, a SandboxSnapshot of s1" "200 ok s1" "${out%% *} $(shape snapshot) $(get 'd["session_id"]')"
snap=$(get 'd["snapshot_id"]')
check "... its archive and record in the store" "$snap.json $snap.tar.zst" \
        "$(ls "$STATE/cordon/snapshots" | tr '\n' ' ' | sed 's/ $//')"
req GET /v1/snapshots >/dev/null
check "GET /v1/snapshots: [SandboxSnapshot] with it" "ok $snap" "$(shape snapshots) $(get '" ".join(s["snapshot_id"] for s in d)')"
out=$(req POST /v1/sessions "{\"session_id\":\"r\",\"from_snapshot\":\"$snap\"}")
check "POST /v1/sessions from_snapshot: 201" 201 "${out%% *}"
out=$(req POST /v1/sessions/r/exec '{"command":"sh","args":["-c","cat \"${TMPDIR:-/tmp}/mark\""]}')
check "... the restored session has the file written before the snapshot" "200 kept" "${out%% *} $(get 'd["stdout"].strip()')"
out=$(req POST /v1/sessions/r/exec '{"command":"sh","args":["-c","cat work.txt \"$HARN_OUTPUTS_DIR/o.txt\""]}')
check "... and what it wrote in its working directory (the session root) and its outputs" \
        "200 work out" "${out%% *} $(get '" ".join(d["stdout"].split())')"
check "DELETE /v1/snapshots/ID: 204, archive and record gone" "204 " \
        "$(req DELETE "/v1/snapshots/$snap")$(ls "$STATE/cordon/snapshots")"
check "... again: 404" "404 invalid_request" "$(status_kind DELETE "/v1/snapshots/$snap")"

# --- every error kind, with its status ---
check "session_not_found: 404" "404 session_not_found" "$(status_kind GET /v1/sessions/nope)"
check "... for an exec too" "404 session_not_found" "$(status_kind POST /v1/sessions/nope/exec '{"command":"true"}')"
check "invalid_request: a blank session id in the path (400)" "400 invalid_request" "$(status_kind GET /v1/sessions/%20)"
check "invalid_request: a blank session_id in the spec" "400 invalid_request" "$(status_kind POST /v1/sessions '{"session_id":"  "}')"
check "invalid_request: a relative mount target" "400 invalid_request" \
        "$(status_kind POST /v1/sessions/s1/mounts '{"source":"","target":"rel","access":"read_only"}')"
check "invalid_request: a .. mount target" "400 invalid_request" \
        "$(status_kind POST /v1/sessions/s1/mounts '{"source":"","target":"/mnt/../etc","access":"read_only"}')"
check "invalid_request: an empty command" "400 invalid_request" "$(status_kind POST /v1/sessions/s1/exec '{"command":" "}')"
check "invalid_request: an invalid environment name" "400 invalid_request" \
        "$(status_kind POST /v1/sessions/s1/exec '{"command":"true","env":{"1A":"x"}}')"
check "invalid_request: an unknown field" "400 invalid_request" "$(status_kind POST /v1/sessions/s1/exec '{"command":"true","shell":true}')"
check "invalid_request: malformed JSON" "400 invalid_request" "$(status_kind POST /v1/sessions '{"session_id":')"
head -c $((8 << 20)) /dev/zero | tr '\0' ' ' >"$T_TMP/big" && echo '{}' >>"$T_TMP/big"
check "invalid_request: a body over 8 MiB" "400 invalid_request" "$(status_kind POST /v1/sessions @"$T_TMP/big")"
check "invalid_request: from_snapshot naming no snapshot" "400 invalid_request" \
        "$(status_kind POST /v1/sessions '{"from_snapshot":"0123456789abcdef0123456789abcdef"}')"
check "invalid_request: a body on suspend" "400 invalid_request" "$(status_kind POST /v1/sessions/s1/suspend '{"now":true}')"
check "invalid_request: after_seq not a number" "400 invalid_request" \
        "$(status_kind GET "/v1/sessions/s1/processes/p1/output?after_seq=x")"
check "lifecycle: a session id taken (409)" "409 lifecycle" "$(status_kind POST /v1/sessions '{"session_id":"s1"}')"
check "exec: a command that does not exist (500)" "500 exec" "$(status_kind POST /v1/sessions/s1/exec '{"command":"no-such-command-here"}')"
req GET /v1/sessions/nope >/dev/null
check "... every error is {\"error\":{\"kind\",\"message\"}}" ok "$(shape error)"
check "a wrong method: 405" "405 invalid_request" "$(status_kind PUT /v1/sessions)"
# io: the holder of a session killed while an exec waits on it.
req POST /v1/sessions '{"session_id":"victim"}' >/dev/null
victim_dir=$(dirname "$(get 'd["metadata"]["session_root"]')")
curl -sS --max-time 60 -o "$T_TMP/io.body" -w '%{http_code}' --unix-socket "$SOCK" -X POST \
        --data-binary '{"command":"sleep","args":["30"]}' http://cordon/v1/sessions/victim/exec >"$T_TMP/io.code" &
sleep 1
kill -KILL "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["holder_pid"])' "$victim_dir/record.json")"
wait $!
check "io: the session's holder killed under a waiting exec (500)" "500 io" \
        "$(cat "$T_TMP/io.code") $("${CHECK[@]}" get 'd["error"]["kind"]' "$T_TMP/io.body")"
check "... the session leaves the table (404)" "404 session_not_found" "$(status_kind GET /v1/sessions/victim)"
for _ in $(seq 50); do [ -e "$victim_dir" ] || break; sleep 0.1; done
[ -e "$victim_dir" ] && not_ok "... and its state directory is removed" || ok "... and its state directory is removed"
# unsupported: a daemon without its holder program can start no session, and says so.
mkdir -p "$T_TMP/lone" && cp "$SERVE" "$T_TMP/lone/cordon-serve"
mkdir -m 0700 "$T_TMP/lone-run" "$T_TMP/lone-state"
XDG_RUNTIME_DIR=$T_TMP/lone-run XDG_STATE_HOME=$T_TMP/lone-state "$T_TMP/lone/cordon-serve" 2>"$T_TMP/lone.log" &
extra_daemons+=($!)
for _ in $(seq 100); do [ -S "$T_TMP/lone-run/cordon/serve.sock" ] && break; sleep 0.1; done
out=$(curl -sS --max-time 20 -w ' %{http_code}' --unix-socket "$T_TMP/lone-run/cordon/serve.sock" http://cordon/v1/capabilities | tr -d '\n')
check "without its holder program: every capability false" \
        '{"local_process_sandbox":false,"network_policy":false,"snapshot":false,"resume":false,"suspend_on_idle":false} 200' "$out"
out=$(curl -sS --max-time 20 -w ' %{http_code}' --unix-socket "$T_TMP/lone-run/cordon/serve.sock" -X POST -d '{}' http://cordon/v1/sessions | tr -d '\n')
check_like "... and POST /v1/sessions: 501 unsupported, backend and operation named" \
        '{"error":{"kind":"unsupported","message":"*","backend":"cordon","operation":"provision"}} 501' "$out"

# --- --output-cap and --max-sessions, on a daemon of their own ---
mkdir -m 0700 "$T_TMP/cap-run" "$T_TMP/cap-state"
XDG_RUNTIME_DIR=$T_TMP/cap-run XDG_STATE_HOME=$T_TMP/cap-state "$SERVE" --output-cap 10 --max-sessions 1 2>"$T_TMP/cap.log" &
extra_daemons+=($!)
for _ in $(seq 100); do [ -S "$T_TMP/cap-run/cordon/serve.sock" ] && break; sleep 0.1; done
capreq() {
        curl -sS --max-time 60 -w ' %{http_code}' --unix-socket "$T_TMP/cap-run/cordon/serve.sock" "$@" | tr -d '\n'
}
capreq -X POST -d '{"session_id":"c1"}' http://cordon/v1/sessions >/dev/null
out=$(capreq -X POST -d '{"command":"printf","args":["0123456789abcdef"]}' http://cordon/v1/sessions/c1/exec)
check "--output-cap 10: stdout cut at 10 bytes, the truncation marker after" \
        '{"stdout":"0123456789\n[cordon: output truncated]\n","stderr":"","exit_code":0,"timed_out":false} 200' "$out"
check_like "--max-sessions 1: a second session is a lifecycle error (409)" '{"error":{"kind":"lifecycle",*} 409' \
        "$(capreq -X POST -d '{"session_id":"c2"}' http://cordon/v1/sessions)"
capreq -X DELETE http://cordon/v1/sessions/c1 >/dev/null

# --- 200 concurrent execs, 50 at a time ---
seq 200 | xargs -P 50 -I{} curl -sS --max-time 120 --unix-socket "$SOCK" -X POST \
        --data-binary '{"command":"echo","args":["{}"]}' -o "$T_TMP/c.{}" -w '%{http_code}\n' \
        http://cordon/v1/sessions/s1/exec >"$T_TMP/codes" 2>&1
good=0
for i in $(seq 200); do
        [ "$(cat "$T_TMP/c.$i" 2>/dev/null)" = "{\"stdout\":\"$i\\n\",\"stderr\":\"\",\"exit_code\":0,\"timed_out\":false}" ] &&
                good=$((good + 1))
done
check "200 concurrent execs (50 at a time): each answered 200 with its own output" "200 200" \
        "$(grep -c '^200$' "$T_TMP/codes") $good"

# --- a secret's value never on disk nor in the log ---
secret="s3cr3t-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
stdin_secret="in-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
out=$(req POST /v1/sessions/s1/exec "{\"command\":\"sh\",\"args\":[\"-c\",\"printf %s \\\"\$PAYLOAD\\\"; cat\"],\"env\":{\"PAYLOAD\":\"$secret\"},\"stdin\":\"$stdin_secret\"}")
check "an exec with a secret in env and stdin gets both (positive control)" "200 $secret$stdin_secret" "${out%% *} $(get 'd["stdout"]')"
check "... the store holds the session's record (the search looks in the right place)" 1 \
        "$(grep -rl '"session_id":"s1"' "$STATE" "$RUN" 2>/dev/null | grep -c record.json)"
check "... neither value is in any file of the store, the runtime directory or the log" "" \
        "$(grep -rlaF -e "$secret" -e "$stdin_secret" "$STATE" "$RUN" "$LOG" 2>/dev/null)"

# --- a sandboxed process handed the socket, or finding it from a session ---
cd "$T_PROJECT" || exit 1
out=$(timeout 60 "$CORDON" run --quiet --net open --rw "$RUN" -- \
        curl -sS --max-time 20 -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" http://cordon/v1/sessions 2>"$T_TMP/run.err")
# The landlock backend's supervisor refuses the connect before the daemon sees it: a unix
# socket the command did not bind (landlock-open-unix.sh); the daemon's own refusal is the ns
# backend's to show.
check "a sandboxed curl handed the socket (its directory bound in): $(on_backend 403 "refused before the daemon (000)")" \
        "$(on_backend 403 000)" "$out"
out=$(req POST /v1/sessions/s1/exec "{\"command\":\"curl\",\"args\":[\"-sS\",\"--max-time\",\"10\",\"-o\",\"/dev/null\",\"-w\",\"%{http_code}\",\"--unix-socket\",\"$SOCK\",\"http://cordon/v1/sessions\"]}")
check "a session's own exec reaching for the socket: $(on_backend "not there (curl: 7)" "refused before the daemon (curl: 7)")" \
        "$(on_backend "7" "7 000")" "$(on_backend "$(get 'd["exit_code"]')" "$(get 'd["exit_code"], d["stdout"]' | tr -d "(),'")")"
check "the same curl outside: 200 (positive control)" 200 "$(req GET /v1/sessions | cut -d' ' -f1)"

# --- the daemon killed with SIGKILL and restarted while sessions run ---
req POST /v1/sessions/s1/processes '{"command":"sleep","args":["300"]}' >/dev/null
sleeper=$(get 'd["process_id"]')
req POST /v1/sessions '{"session_id":"doomed"}' >/dev/null
doomed_dir=$(dirname "$(get 'd["metadata"]["session_root"]')")
doomed_name=$(basename "$doomed_dir")
{
        kill -KILL "$daemon"
        wait "$daemon"
} 2>/dev/null
# While no daemon runs, one holder dies too: what it leaves is for the next daemon to remove.
doomed_pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["holder_pid"])' "$doomed_dir/record.json")
kill -KILL "$doomed_pid"
for _ in $(seq 50); do kill -0 "$doomed_pid" 2>/dev/null || break; sleep 0.1; done
# Two records planted in the store by a sandbox given it, for the next daemon to find. cordon
# keeps the store of the state directory it runs with read-only (state-dir-planted.sh), so this
# one runs with another in its environment and is given the daemon's with --rw: one names a process of the user's (a stand-in for an
# editor: its pid and start time, the socket path the daemon would give a holder of that name),
# the other a listener posing as a holder on a socket of its own choosing (the decoy stands in
# for one the sandbox keeps running).
sleep 300 &
victim=$!
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8); time.sleep(300)' "$T_TMP/decoy.sock" &
decoy=$!
extra_daemons+=("$victim" "$decoy")
for _ in $(seq 50); do [ -S "$T_TMP/decoy.sock" ] && break; sleep 0.1; done
start_of() { python3 -c 'import sys; print(open("/proc/%s/stat" % sys.argv[1]).read().rsplit(")", 1)[1].split()[19])' "$1"; }
XDG_STATE_HOME=$T_TMP/elsewhere "$CORDON" run --quiet --net isolated --rw "$STATE" -- python3 -c 'import json, os, sys, time
store, run = sys.argv[1] + "/cordon/sessions", sys.argv[2]
for name, sid, pid, start, sock in (
        ("a" * 32, "planted-victim", sys.argv[3], sys.argv[4], run + "/cordon/sessions/" + "a" * 32 + ".sock"),
        ("b" * 32, "planted-decoy", sys.argv[5], sys.argv[6], sys.argv[7])):
    os.mkdir(store + "/" + name, 0o700)
    with open(store + "/" + name + "/record.json", "w") as f:
        json.dump({"version": 1, "name": name, "session_id": sid, "holder_pid": int(pid),
                   "holder_start": int(start), "socket": sock, "backend": "ns",
                   "created": int(time.time())}, f)' \
        "$STATE" "$RUN" "$victim" "$(start_of "$victim")" "$decoy" "$(start_of "$decoy")" "$T_TMP/decoy.sock" 2>"$T_TMP/plant.err"
check "a sandbox given the store plants two records in it (the attack's setup)" "2" \
        "$(ls "$STATE/cordon/sessions/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/record.json" "$STATE/cordon/sessions/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/record.json" 2>/dev/null | wc -l)$(sed 's/^/ /' "$T_TMP/plant.err")"
before=$(cd "$STATE/cordon/sessions" && ls | wc -l)
start_daemon && ok "a new daemon starts after a SIGKILL of the old" || not_ok "a new daemon starts after a SIGKILL of the old" "$(tail -5 "$LOG")"
req GET /v1/sessions >/dev/null
check "... it re-adopts every live session, ids the same" "$anon n r s1 w" "$(get '" ".join(sorted(s["id"] for s in d))')"
out=$(req POST /v1/sessions/s1/exec '{"command":"echo","args":["again"]}')
check "... a re-adopted session answers an exec" "200 again" "${out%% *} $(get 'd["stdout"].strip()')"
req GET /v1/sessions/s1/processes >/dev/null
check "... its process started before the SIGKILL still runs, same id" True \
        "$(get "[p['running'] for p in d if p['process_id'] == '$sleeper'][0]")"
check "... the dead session's state directory and socket are removed" "gone gone $((before - 1))" \
        "$([ -e "$doomed_dir" ] && echo there || echo gone) $([ -e "$RUN/cordon/sessions/$doomed_name.sock" ] && echo there || echo gone) $(cd "$STATE/cordon/sessions" && ls | wc -l)"
check "... the log says which was re-adopted and which removed" "1 1" \
        "$(grep -c '^cordon: session s1: re-adopted' "$LOG") $(grep -c "^cordon: session doomed: its holder (pid $doomed_pid) is gone" "$LOG")"
sleep 0.5
req GET /v1/sessions >/dev/null
check "... the process the planted record names was not signalled: it still runs" alive \
        "$(kill -0 "$victim" 2>/dev/null && echo alive || echo "ended ($(wait "$victim"; echo $?))")"
check "... the decoy listening on the socket its record names was not taken for a holder" \
        "absent alive" \
        "$(get '"present" if any(s["id"].startswith("planted") for s in d) else "absent"') $(kill -0 "$decoy" 2>/dev/null && echo alive || echo ended)"
check "... the log names both as unverified; their directories are left as they were" "1 1 there there" \
        "$(grep -c "^cordon: warning: the store's session aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa (planted-victim): pid $victim cannot be verified as its holder" "$LOG") $(grep -c "^cordon: warning: the store's session bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb (planted-decoy): pid $decoy cannot be verified as its holder (its record names another socket)" "$LOG") $([ -d "$STATE/cordon/sessions/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" ] && echo there) $([ -d "$STATE/cordon/sessions/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" ] && echo there)"
kill "$victim" "$decoy" 2>/dev/null
rm -rf "$STATE/cordon/sessions/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" "$STATE/cordon/sessions/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

# --- DELETE, and SIGTERM of the daemon (the sessions live on) ---
w_dir=$(python3 -c 'import json,sys,glob
for f in glob.glob(sys.argv[1] + "/cordon/sessions/*/record.json"):
    if json.load(open(f))["session_id"] == "w": print(f.rsplit("/", 1)[0])' "$STATE")
check "DELETE /v1/sessions/w: 204 with no body" "204 " "$(req DELETE /v1/sessions/w)"
for _ in $(seq 50); do [ -e "$w_dir" ] || break; sleep 0.1; done
check "... gone from the table, its state directory removed" "404 gone" \
        "$(status_kind GET /v1/sessions/w | cut -d' ' -f1) $([ -e "$w_dir" ] && echo there || echo gone)"
kill -TERM "$daemon"
wait "$daemon"
check "SIGTERM: the daemon exits 0" 0 "$?"
start_daemon >/dev/null
check "... and its sessions live on for the next one" "200 s1" "$(req GET /v1/sessions/s1 | cut -d' ' -f1) $(get 'd["id"]')"
check "the log names method, route, status and session" 1 \
        "$(grep -c '^cordon: POST /v1/sessions/{id}/exec 200 session w$' "$LOG")"

# --- a full disk during a snapshot leaves no partial archive ---
small=${T_SMALL_FS:-}
if [ -z "$small" ] && [ "$(id -u)" -eq 0 ]; then
        mkdir -m 0700 "$T_TMP/small-state" &&
                mount -t tmpfs -o size=16m,mode=0700 tmpfs "$T_TMP/small-state" && mounted=$T_TMP/small-state && small=$mounted
fi
if [ -z "$small" ]; then
        skip "no small file system (T_SMALL_FS is prepared by tests/run-tap.sh as root)" "a snapshot on a full disk: io"
        skip "no small file system" "... no archive, record or temporary file left"
        skip "no small file system" "... the snapshot before it is intact (positive control)"
else
        rm -rf "${small:?}"/*
        mkdir -m 0700 "$T_TMP/small-run"
        XDG_RUNTIME_DIR=$T_TMP/small-run XDG_STATE_HOME=$small "$SERVE" 2>>"$T_TMP/small.log" &
        extra_daemons+=($!)
        SOCK=$T_TMP/small-run/cordon/serve.sock
        for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
        req POST /v1/sessions '{"session_id":"full"}' >/dev/null
        req POST /v1/sessions/full/snapshot >/dev/null
        first=$(get 'd["snapshot_id"]')
        req POST /v1/sessions/full/exec '{"command":"sh","args":["-c","head -c 25165824 /dev/urandom >\"${TMPDIR:-/tmp}/big\""]}' >/dev/null
        check "a snapshot on a full disk: io" "500 io" "$(status_kind POST /v1/sessions/full/snapshot)"
        check "... no archive, record or temporary file left" "$first.json $first.tar.zst" \
                "$(ls -A "$small/cordon/snapshots" | tr '\n' ' ' | sed 's/ $//')"
        req GET /v1/snapshots >/dev/null
        check "... the snapshot before it is intact (positive control)" "$first" "$(get '" ".join(s["snapshot_id"] for s in d)')"
        req DELETE /v1/sessions/full >/dev/null
        SOCK=$RUN/cordon/serve.sock
fi
