#!/usr/bin/env bash
# cordon-serve-session (issue 26), the holder of one session, driven directly as the daemon
# drives it (src/serve/holder-proto.h): the spec on stdin and the ready frame on fd 3, then
# frames on its socket through tests/helpers/holder-client.py. Execs (exit code, stdout, stdin,
# timeout, lossy UTF-8, the output cap), a secret environment value that reaches no file and no
# log, processes (a stream read in two connections that loses nothing, backpressure, stdin,
# signal, a pty and its size, the list), suspend/resume, snapshot, mounts (unsupported under
# landlock), the limited network, terminate and SIGTERM, and the attack: a sandboxed process
# given the socket is closed unanswered while the same client outside is served.
. "$(dirname "$0")/../lib/tap.sh"

HOLDER=${CORDON_SERVE_SESSION:?CORDON_SERVE_SESSION: the cordon-serve-session binary}
CLIENT=$T_SRC/tests/helpers/holder-client.py
RUN=$T_TMP/run
STATE=$HOME/.local/state/cordon/sessions
mkdir -m 0700 "$RUN"
mkdir -p "$STATE"
chmod 0700 "$HOME/.local/state/cordon" "$STATE"
ll=$([ "${SANDBOX_BACKEND:-}" = landlock ] && echo 1 || echo 0)
pids=()
cleanup() { [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null; }
trap cleanup EXIT

# start NAME SPEC [OPTION...]: starts a holder (its stderr in $T_TMP/NAME.log); the ready frame
# in $ready, the client's status in $rc, the holder's pid in $hpid.
start() {
        local name=$1 spec=$2
        shift 2
        ready=$(printf '%s' "$spec" | timeout 120 python3 "$CLIENT" start "$HOLDER" --name "$name" \
                --state-dir "$STATE/$name" --socket "$RUN/$name.sock" "$@" 2>>"$T_TMP/$name.log")
        rc=$?
        hpid=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["holder_pid"])' \
                "$STATE/$name/record.json" 2>/dev/null)
        [ -n "$hpid" ] && pids+=("$hpid")
}
# call NAME JSON: the reply to one request.
call() { timeout 120 python3 "$CLIENT" call "$RUN/$1.sock" "$2"; }
# q JSON-TEXT EXPR: EXPR evaluated in python with d the parsed text.
q() { python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }
# exec_req COMMAND ARG...: an exec request's JSON (a shell's -c script passes as an argument).
exec_req() { python3 -c 'import json, sys; print(json.dumps({"op": "exec", "request": {"command": sys.argv[1], "args": sys.argv[2:]}}))' "$@"; }

plan 55

A=a0000000000000000000000000000001
spec_a='{"session_id":"tap-a","labels":{"tenant":"t"},"limits":{"wall_time":{"secs":30,"nanos":0}}'
[ $ll = 0 ] && spec_a+=',"mounts":[{"source":"","target":"/data","access":"read_write"}]'
spec_a+='}'
start $A "$spec_a" --output-cap 1000
check "the ready frame says ok, with the SandboxSession (id, backend, state)" "True tap-a cordon running" \
        "$(q "$ready" 'd["ok"], d["result"]["id"], d["result"]["backend"], d["result"]["state"]' | tr -d "(),'")"
check "the record names the holder, its start time and its socket" "1 $A $RUN/$A.sock" \
        "$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); import os
st = open("/proc/%d/stat" % r["holder_pid"]).read().rsplit(")", 1)[1].split()
assert int(st[19]) == r["holder_start"], (st[19], r)
print(r["version"], r["name"], r["socket"])' "$STATE/$A/record.json" 2>&1)"
check "the socket is 0600, the state directory and the session root 0700" "600 700 700" \
        "$(stat -c %a "$RUN/$A.sock") $(stat -c %a "$STATE/$A") $(stat -c %a "$STATE/$A/root")"
out=$(call $A '{"op":"session"}')
check "session: metadata names the session root and the backend" \
        "$STATE/$A/root $(on_backend ns landlock) open" \
        "$(q "$out" 'd["result"]["metadata"]["session_root"], d["result"]["metadata"]["backend"], d["result"]["metadata"]["network"]' | tr -d "(),'")"
mem_host=$STATE/$A/memory out_host=$STATE/$A/outputs
check "the canonical mounts: memory read-only, outputs read-write, their host paths" \
        "$(on_backend "/mnt/memory read_only $mem_host /mnt/session/outputs read_write $out_host" "$mem_host read_only $mem_host $out_host read_write $out_host")" \
        "$(q "$out" '" ".join("%s %s %s" % (m["target"], m["access"], m["host_path"]) for m in d["result"]["mounts"][:2])')"

# --- exec ---
out=$(call $A "$(exec_req sh -c 'echo out; echo err >&2; pwd; exit 3')")
check "exec: exit code, stdout, stderr; the cwd is the session root" \
        "3|out
$STATE/$A/root
|err
|False" "$(q "$out" '"%s|%s|%s|%s" % (d["result"]["exit_code"], d["result"]["stdout"], d["result"]["stderr"], d["result"]["timed_out"])')"
out=$(call $A '{"op":"exec","request":{"command":"cat","stdin":"fed through a pipe"}}')
check "exec: stdin" "fed through a pipe" "$(q "$out" 'd["result"]["stdout"]')"
out=$(call $A '{"op":"exec","request":{"command":"sleep","args":["30"],"timeout":0.5}}')
check "exec: a timeout kills it: timed_out, 137" "True 137" "$(q "$out" 'd["result"]["timed_out"], d["result"]["exit_code"]' | tr -d '(),')"
out=$(call $A "$(exec_req sh -c 'printf "a\377b"')")
check "exec: bytes that are not UTF-8 are replaced" "a�b" "$(q "$out" 'd["result"]["stdout"]')"
out=$(call $A "$(exec_req sh -c 'head -c 5000000 /dev/zero | tr "\0" x')")
check "exec: output over --output-cap is cut with the marker (and drained: the command ends)" \
        "1000 True 0" "$(q "$out" 'd["result"]["stdout"].count("x"), d["result"]["stdout"].endswith("\n[cordon: output truncated]\n"), d["result"]["exit_code"]' | tr -d '(),')"
out=$(call $A "$(exec_req sh -c 'mkdir -p sub && cd sub && pwd')")
out=$(call $A '{"op":"exec","request":{"command":"pwd","cwd":"sub"}}')
check "exec: a relative cwd is resolved against the session root" "$STATE/$A/root/sub" \
        "$(q "$out" 'd["result"]["stdout"].strip()')"
out=$(call $A "$(exec_req sh -c 'touch "$HARN_OUTPUTS_DIR/o" && echo w; touch "$HARN_MEMORY_DIR/m" 2>/dev/null || echo ro; echo "$CORDON_OUTPUTS_DIR"')")
check "exec: outputs writable, memory read-only, named by HARN_*/CORDON_* inside" \
        "w ro $(on_backend /mnt/session/outputs "$out_host")" "$(q "$out" 'd["result"]["stdout"]' | xargs)"
check "... what was written is at the outputs' host path" "yes" "$([ -e "$out_host/o" ] && echo yes)"

# A secret value reaches the command and nothing else: no file under DIR, not the log.
secret=zebra-umbrella-$RANDOM-$RANDOM
out=$(call $A "{\"op\":\"exec\",\"request\":{\"command\":\"sh\",\"args\":[\"-c\",\"test \\\"\$MY_VALUE\\\" = $secret && echo seen\"],\"env\":{\"MY_VALUE\":\"$secret\"}}}")
check "exec: an env value reaches the command (positive control)" "seen" "$(q "$out" 'd["result"]["stdout"].strip()')"
check "... and appears in no file under the state directory nor in the holder's stderr" "" \
        "$(grep -rl -- "$secret" "$STATE/$A" "$T_TMP/$A.log" 2>/dev/null)"
check_like "... which names the exec by sizes only" "*exec started: 2 arguments, 1 variables, 0 bytes of stdin*" \
        "$(cat "$T_TMP/$A.log")"

# --- mounts ---
if [ $ll = 0 ]; then
        out=$(call $A "$(exec_req sh -c 'echo x > /data/f && cat /data/f')")
        dhost=$(q "$(call $A '{"op":"session"}')" '[m["host_path"] for m in d["result"]["mounts"] if m["target"] == "/data"][0]')
        check "a spec mount with an empty source: a fresh directory of the session's, writable at its target" \
                "x yes" "$(q "$out" 'd["result"]["stdout"].strip()') $([ "${dhost#"$STATE/$A/"}" != "$dhost" ] && [ -f "$dhost/f" ] && echo yes)"
        mkdir "$T_TMP/extra" && echo extra >"$T_TMP/extra/f"
        out=$(call $A "{\"op\":\"mount\",\"mount\":{\"source\":\"$T_TMP/extra\",\"target\":\"/mnt/extra\",\"access\":\"read_only\"}}")
        check "the mount op adds a mount to the live session" "/mnt/extra" \
                "$(q "$out" 'd["result"]["mounts"][-1]["target"]')"
        out=$(call $A "$(exec_req sh -c 'cat /mnt/extra/f; touch /mnt/extra/g 2>/dev/null || echo ro')")
        check "... read-only, seen at once" "extra ro" "$(q "$out" 'd["result"]["stdout"]' | xargs)"
else
        start a0000000000000000000000000000002 '{"mounts":[{"source":"","target":"/data","access":"read_write"}]}'
        check "landlock: a spec mount: unsupported (backend landlock, operation mount)" \
                "1 unsupported landlock mount" "$rc $(q "$ready" 'd["error"]["kind"], d["error"]["backend"], d["error"]["operation"]' | tr -d "(),'")"
        check "... and the failed start leaves no state directory" "gone" \
                "$([ -e "$STATE/a0000000000000000000000000000002" ] || echo gone)"
        out=$(call $A "{\"op\":\"mount\",\"mount\":{\"source\":\"$T_TMP\",\"target\":\"/mnt/extra\",\"access\":\"read_only\"}}")
        check "landlock: the mount op: unsupported" "False unsupported landlock mount" \
                "$(q "$out" 'd["ok"], d["error"]["kind"], d["error"]["backend"], d["error"]["operation"]' | tr -d "(),'")"
fi

# --- processes ---
out=$(call $A '{"op":"process_start","request":{"command":"seq","args":["1","20000"]}}')
check "process_start: a process id" "p1" "$(q "$out" 'd["result"]["process_id"]')"
first=$(timeout 60 python3 "$CLIENT" read "$RUN/$A.sock" p1 0 1)
n=$(q "$first" 'd["last_seq"]')
rest=$(timeout 60 python3 "$CLIENT" read "$RUN/$A.sock" p1 "$n" 0)
check "a stream read in two connections (after_seq) loses nothing" "$(seq 1 20000 | md5sum)" \
        "$(python3 -c 'import json, sys
sys.stdout.write(json.loads(sys.argv[1])["stdout"] + json.loads(sys.argv[2])["stdout"])' "$first" "$rest" | md5sum)"
check "... and ends with the exit record" "True 0 False" "$(q "$rest" 'd["done"], d["exit"]["exit_code"], d["exit"]["timed_out"]' | tr -d '(),')"
out=$(call $A '{"op":"process_start","request":{"command":"sh","args":["-c","head -c 3000000 /dev/zero | tr \"\\0\" y; echo; echo end"]}}')
sleep 1
timeout 60 python3 "$CLIENT" read "$RUN/$A.sock" p2 0 0 >"$T_TMP/big.json"
check "3 MB through the 1 MiB backpressure (the command waited, nothing was dropped)" "3000005 end" \
        "$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(len(d["stdout"]), d["stdout"].split()[-1])' "$T_TMP/big.json" 2>&1)"
call $A '{"op":"process_start","request":{"command":"cat"}}' >/dev/null
out=$(call $A '{"op":"process_stdin","process_id":"p3","data":"aGVsbG8K","eof":true}')
check "process_stdin: {}" '{}' "$(q "$out" 'json.dumps(d["result"])')"
out=$(timeout 60 python3 "$CLIENT" read "$RUN/$A.sock" p3 0 0)
check "... cat got it and ended at the eof" "hello 0" "$(q "$out" 'd["stdout"].strip(), d["exit"]["exit_code"]' | tr -d "(),'")"
call $A '{"op":"process_start","request":{"command":"sleep","args":["100"]}}' >/dev/null
out=$(call $A '{"op":"process_list"}')
check "process_list: the running sleep" "sleep True None" \
        "$(q "$out" '[(p["command"], p["running"], p["exit_code"]) for p in d["result"] if p["process_id"] == "p4"][0]' | tr -d "(),'")"
call $A '{"op":"process_signal","process_id":"p4","signal":15}' >/dev/null
out=$(timeout 60 python3 "$CLIENT" read "$RUN/$A.sock" p4 0 0)
check "process_signal: SIGTERM ends it (143)" "143" "$(q "$out" 'd["exit"]["exit_code"]')"
out=$(call $A '{"op":"process_signal","process_id":"p4","signal":15}')
check "... a signal to it now: lifecycle" "lifecycle" "$(q "$out" 'd["error"]["kind"]')"
call $A '{"op":"process_start","request":{"command":"sh","args":["-c","read x; stty size; tty"],"pty":true}}' >/dev/null
out=$(call $A '{"op":"process_resize","process_id":"p5","rows":33,"cols":111}')
check "process_resize on a pty: {}" '{}' "$(q "$out" 'json.dumps(d["result"])')"
call $A '{"op":"process_stdin","process_id":"p5","data":"Z28K","eof":false}' >/dev/null
out=$(timeout 60 python3 "$CLIENT" read "$RUN/$A.sock" p5 0 0)
check_like "... stty size inside says 33 111, on a terminal" "*33 111*/dev/pts/*" "$(q "$out" 'd["stdout"]' | tr -d '\r')"
out=$(call $A '{"op":"process_resize","process_id":"p3","rows":3,"cols":3}')
check "process_resize without a pty: lifecycle" "lifecycle" "$(q "$out" 'd["error"]["kind"]')"
out=$(call $A '{"op":"process_output","process_id":"p99","after_seq":0,"wait_ms":0}')
check "an unknown process: invalid_request" "invalid_request" "$(q "$out" 'd["error"]["kind"]')"
# A pty's end of input after a partial line: one ^D would only hand the line over (cat then
# waits on); the holder sends the terminal's EOF character twice there.
call $A '{"op":"process_start","request":{"command":"cat","pty":true}}' >/dev/null
call $A '{"op":"process_stdin","process_id":"p6","data":"YWJj","eof":true}' >/dev/null
out=$(timeout 20 python3 "$CLIENT" read "$RUN/$A.sock" p6 0 0)
check "a pty's eof after a partial line: cat got it and ended" "True 0" \
        "$(q "$out" '"abc" in d["stdout"], d["exit"]["exit_code"]' | tr -d "(),'")"

# --- suspend / resume ---
# A counter of one process that forks nothing (a fork racing the stop makes the library's
# stop-signal suspend go round again; that is its own test's business).
COUNTER='import os, sys, time
d, i = os.environ["HARN_OUTPUTS_DIR"], 0
while True:
    i += 1
    open(d + "/c.tmp", "w").write(str(i))
    os.replace(d + "/c.tmp", d + "/" + sys.argv[1])
    time.sleep(0.02)'
counter_req() { python3 -c 'import json, sys; print(json.dumps({"op": "process_start", "request": {"command": "python3", "args": ["-c", sys.argv[1], sys.argv[2]]}}))' "$COUNTER" "$1"; }
call $A "$(counter_req count)" >/dev/null
sleep 0.5
out=$(call $A '{"op":"suspend"}')
c1=$(cat "$out_host/count"); sleep 1; c2=$(cat "$out_host/count")
check "suspend: state suspended, and the counter stops" "suspended $c1" "$(q "$out" 'd["result"]["state"] if d["ok"] else d') $c2"
out=$(call $A '{"op":"resume"}')
sleep 1
c3=$(cat "$out_host/count")
check "resume: state running, and the counter goes on" "running yes" \
        "$(q "$out" 'd["result"]["state"]') $([ "$c3" -gt "$c2" ] && echo yes)"

# --- snapshot ---
call $A "$(exec_req sh -c 'echo kept > "${TMPDIR:-/tmp}/keep"')" >/dev/null
out=$(call $A "{\"op\":\"snapshot\",\"path\":\"$T_TMP/snap.tar.zst\"}")
check "snapshot: an archive written, its size answered" "$(stat -c %s "$T_TMP/snap.tar.zst" 2>&1) 28b52ffd" \
        "$(q "$out" 'd["result"]["bytes"] if d["ok"] else d') $(head -c 4 "$T_TMP/snap.tar.zst" | od -An -tx1 | tr -d ' \n')"

F=f0000000000000000000000000000001
start $F '{}' --from-snapshot "$T_TMP/snap.tar.zst"
out=$(call $F "$(exec_req sh -c 'cat "${TMPDIR:-/tmp}/keep"')")
check "--from-snapshot: a new session starts with the snapshot's files" "kept" \
        "$(q "$out" 'd["result"]["stdout"].strip()')"
call $F '{"op":"terminate"}' >/dev/null

# --- errors ---
out=$(call $A '{"op":"reboot"}')
check "an unknown op: invalid_request" "invalid_request" "$(q "$out" 'd["error"]["kind"]')"
check "a frame that is not a JSON object: closed unanswered" "closed" \
        "$(timeout 30 python3 "$CLIENT" raw "$RUN/$A.sock" 020000005b5d)"

# --- the attack: the socket handed to a sandboxed process ---
B=b0000000000000000000000000000001
start $B "{\"mounts\":[{\"source\":\"$RUN\",\"target\":\"$RUN\",\"access\":\"read_write\"}]}"
CONNECT='import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(20)
try:
    s.connect(sys.argv[1])
    b = b"{\"id\":1,\"op\":\"session\"}"
    s.sendall(struct.pack("<I", len(b)) + b)
    print("answered" if len(s.recv(4)) == 4 else "closed")
except (BrokenPipeError, ConnectionResetError):
    print("closed")
except OSError as e:
    print("error", e.errno)'
out=$(call $B "$(exec_req python3 -c "$CONNECT" "$RUN/$B.sock")")
# The landlock backend's supervisor refuses the connect before the holder sees it (EACCES: not a
# unix socket the command bound, landlock-open-unix.sh); the holder's own refusal is the ns
# backend's to show.
check "a sandboxed process given the socket: $(on_backend "closed unanswered" "refused before the holder (EACCES)")" \
        "$(on_backend closed "error 13")" "$(q "$out" 'd["result"]["stdout"].strip()')"
check "the same client outside is served (positive control)" "answered" "$(python3 -c "$CONNECT" "$RUN/$B.sock")"
if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
        check "the holder saw no sandboxed connection" "" "$(grep "refused a connection" "$T_TMP/$B.log")"
else
        check_like "the holder logs the refusal" "*refused a connection: *is in another pid namespace (a sandbox)*" \
                "$(cat "$T_TMP/$B.log")"
fi

# --- terminate ---
out=$(call $B '{"op":"terminate"}')
for _ in $(seq 100); do [ -e "$STATE/$B" ] || break; sleep 0.1; done
check "terminate: {}, then the state directory and the socket are gone" "{} gone gone" \
        "$(q "$out" 'json.dumps(d["result"])') $([ -e "$STATE/$B" ] || echo gone) $([ -e "$RUN/$B.sock" ] || echo gone)"

# --- the limited network ---
D=d0000000000000000000000000000001
start $D '{"network_policy":{"mode":"limited","allowed_hosts":["allowed.example"]}}'
dpid=$hpid
PROXY='import os, socket, sys
host, port = os.environ["HTTP_PROXY"].split("//")[1].rstrip("/").rsplit(":", 1)
for t in sys.argv[1:]:
    s = socket.create_connection((host, int(port)), timeout=20)
    s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (t, t)).encode())
    print(s.recv(200).split(b"\r\n")[0].decode().split()[1])'
out=$(call $D "$(exec_req python3 -c "$PROXY" denied.example:80 allowed.example:80)")
check "limited: a host not allowed is refused (403); the allowed one is not refused by the rules" \
        "403 502" "$(q "$out" 'd["result"]["stdout"]' | xargs)"
out=$(call $D '{"op":"network_policy","policy":{"mode":"unrestricted"}}')
check_like "network_policy: a weaker policy is refused (network_policy, the library's reason)" \
        "network_policy *weaker*" "$(q "$out" 'd["error"]["kind"], d["error"]["message"]' | tr -d "(),'")"
out=$(call $D '{"op":"network_policy","policy":{"mode":"limited","allowed_hosts":[]}}')
check "network_policy: limited to nothing isolates the live session" "isolated" \
        "$(q "$out" 'd["result"]["metadata"]["network"]')"
out=$(call $D "$(exec_req python3 -c "$PROXY" allowed.example:80)")
check "... and the host allowed before is refused now" "403" "$(q "$out" 'd["result"]["stdout"]' | xargs)"

# --- the sandbox killed from outside: the holder ends with it ---
K=e0000000000000000000000000000002
start $K '{}'
first=
for c in $(pgrep -P "$hpid"); do
        if [ $ll = 1 ]; then [ "$(cat /proc/$c/comm)" = cordon-reaper ] && first=$c
        else [ "$(readlink /proc/$c/ns/pid)" != "$(readlink /proc/self/ns/pid)" ] && first=$c; fi
done
kill -KILL "$first"
for _ in $(seq 300); do kill -0 "$hpid" 2>/dev/null || break; sleep 0.1; done
got="$([ -n "$first" ] && echo found) $(kill -0 "$hpid" 2>/dev/null || echo ended) $([ -e "$STATE/$K" ] || echo gone) $([ -e "$RUN/$K.sock" ] || echo gone)"
if [ "$got" = "found ended gone gone" ]; then
        ok "the sandbox's first process killed: the holder ends, its directory and socket removed"
else
        not_ok "the sandbox's first process killed: the holder ends, its directory and socket removed" \
                "actual: $got (killed '$first' of holder $hpid: $(ps -o pid,stat,comm --ppid "$hpid" 2>&1 | tr '\n' ' '))" \
                "$(tail -5 "$T_TMP/$K.log")"
fi
check_like "... saying so" "*the session's sandbox has ended*" "$(cat "$T_TMP/$K.log")"

# --- the admin's rules win ---
admin=$T_SRC/tests/fixtures/serve-holder-admin.conf
if [ "$(stat -c %u "$admin")" != 0 ] || [ -e /etc/cordon/sandbox.conf ] ||
        [ -e /app/lib/agent-sandbox/sandbox.conf ]; then
        skip "the admin fixture is not root's, or this machine has a real admin baseline" \
                "an admin baseline's isolated network refuses an unrestricted spec"
        skip "the admin fixture is not root's, or this machine has a real admin baseline" \
                "... and admits a spec within it"
else
        G=c0000000000000000000000000000001
        ready=$(printf '{}' | CORDON_ADMIN_CONF=$admin timeout 120 python3 "$CLIENT" start "$HOLDER" \
                --name $G --state-dir "$STATE/$G" --socket "$RUN/$G.sock" 2>>"$T_TMP/$G.log")
        check_like "an admin baseline's isolated network refuses an unrestricted spec (network_policy)" \
                "False network_policy *administrator*NETWORK_FILTER_MODE=isolated*" \
                "$(q "$ready" 'd["ok"], d["error"]["kind"], d["error"]["message"]' | tr -d "(),'")"
        ready=$(printf '{"network_policy":{"mode":"limited","allowed_hosts":[]}}' |
                CORDON_ADMIN_CONF=$admin timeout 120 python3 "$CLIENT" start "$HOLDER" \
                --name $G --state-dir "$STATE/$G" --socket "$RUN/$G.sock" 2>>"$T_TMP/$G.log")
        check "... and admits a spec within it (limited to nothing: isolated)" "True isolated" \
                "$(q "$ready" 'd["ok"], d["result"]["metadata"]["network"]' | tr -d "(),'")"
        call $G '{"op":"terminate"}' >/dev/null
fi

# --- SIGTERM ---
kill -TERM "$dpid"
for _ in $(seq 100); do kill -0 "$dpid" 2>/dev/null || break; sleep 0.1; done
check "SIGTERM: the holder ends, its state directory and socket removed" "ended gone gone" \
        "$(kill -0 "$dpid" 2>/dev/null || echo ended) $([ -e "$STATE/$D" ] || echo gone) $([ -e "$RUN/$D.sock" ] || echo gone)"

# --- the idle suspend ---
E=e0000000000000000000000000000001
start $E '{"limits":{"idle_timeout":{"secs":1,"nanos":0}}}'
call $E "$(counter_req t)" >/dev/null
sleep 2.5
t1=$(cat "$STATE/$E/outputs/t"); sleep 0.5; t2=$(cat "$STATE/$E/outputs/t")
check "idle_timeout: suspended after a second without activity, the process stopped" "suspended $t1" \
        "$(q "$(call $E '{"op":"session"}')" 'd["result"]["state"]') $t2"
out=$(call $E '{"op":"exec","request":{"command":"echo","args":["back"]}}')
check "... the next exec resumes it" "back running" \
        "$(q "$out" 'd["result"]["stdout"].strip()') $(q "$(call $E '{"op":"session"}')" 'd["result"]["state"]')"

call $E '{"op":"terminate"}' >/dev/null

out=$(call $A '{"op":"terminate"}')
for _ in $(seq 100); do [ -e "$STATE/$A" ] || break; sleep 0.1; done
check "terminate of the first session: its directory gone too" "gone" "$([ -e "$STATE/$A" ] || echo gone)"
