#!/usr/bin/env bash
# cordon-serve (issue 26), the daemon without sessions: its socket (0600 in a 0700 directory,
# one daemon per socket, a private runtime directory required), GET /v1/capabilities, the error
# shapes of unknown routes, wrong methods and oversized bodies, the optional TCP socket with its
# bearer token, SIGTERM. And the attack: a sandboxed process that is given the socket (its
# directory bound read-write) is refused with 403, while the same curl outside gets 200.
. "$(dirname "$0")/../lib/tap.sh"

SERVE=${CORDON_SERVE:?CORDON_SERVE: the cordon-serve binary}
RUN=$T_TMP/run
mkdir -m 0700 "$RUN"
SOCK=$RUN/cordon/serve.sock
pids=()
cleanup() { [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null; }
trap cleanup EXIT

# wait_for FILE: until FILE exists (a socket, a log line), at most 10 s.
wait_for() {
        for _ in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.1; done
        return 1
}
# req [CURL-OPTION...] PATH: "STATUS BODY" of a request on the unix socket.
req() {
        local path=${*: -1}
        curl -sS --max-time 20 -o "$T_TMP/body" -w '%{http_code}' --unix-socket "$SOCK" \
                "${@:1:$#-1}" "http://cordon$path" >"$T_TMP/code" 2>"$T_TMP/curl.err"
        echo "$(cat "$T_TMP/code") $(cat "$T_TMP/body")"
}

plan 26

XDG_RUNTIME_DIR=$RUN "$SERVE" 2>"$T_TMP/serve.log" &
pids+=($!)
daemon=$!
if wait_for "$SOCK"; then ok "the daemon listens on \$XDG_RUNTIME_DIR/cordon/serve.sock"; else
        not_ok "the daemon listens on \$XDG_RUNTIME_DIR/cordon/serve.sock" "$(cat "$T_TMP/serve.log")"
fi
check "the socket is 0600" "600" "$(stat -c %a "$SOCK")"
check "its directory is 0700" "700" "$(stat -c %a "$RUN/cordon")"

# --- capabilities ---
out=$(req /v1/capabilities)
check_like "GET /v1/capabilities: 200" "200 *" "$out"
check "the body is SandboxCapabilities, its keys exactly, all booleans" \
        "local_process_sandbox network_policy resume snapshot suspend_on_idle" \
        "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert all(isinstance(v, bool) for v in d.values()), d
print(" ".join(sorted(d)))' "$T_TMP/body" 2>&1)"
check "snapshot, resume and suspend_on_idle: delivered on this host (its libraries, a backend)" \
        "True True True" \
        "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); print(d["snapshot"], d["resume"], d["suspend_on_idle"])' "$T_TMP/body" 2>&1)"
check "local_process_sandbox: true on this host (a backend runs the suite)" "True" \
        "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["local_process_sandbox"])' "$T_TMP/body" 2>&1)"
check "Content-Type: application/json" "application/json" \
        "$(curl -sS -o /dev/null -w '%{content_type}' --unix-socket "$SOCK" http://cordon/v1/capabilities)"

# --- errors ---
check "an unknown path: 404 invalid_request, no such route" \
        '404 {"error":{"kind":"invalid_request","message":"no such route"}}' "$(req /v1/nothing)"
out=$(req -X DELETE /v1/capabilities)
check_like "a known path with another method: 405 invalid_request" \
        '405 {"error":{"kind":"invalid_request","message":"method DELETE is not allowed here*"}}' "$out"
check "... with Allow: GET" "Allow: GET" \
        "$(curl -sS -o /dev/null -D - -X DELETE --unix-socket "$SOCK" http://cordon/v1/capabilities | tr -d '\r' | grep -i '^allow:')"
head -c $((9 << 20)) /dev/zero >"$T_TMP/big"
out=$(req -X GET --data-binary @"$T_TMP/big" /v1/capabilities)
check_like "a 9 MiB body: 400 invalid_request, refused unread" \
        '400 {"error":{"kind":"invalid_request","message":"the request body is larger than 8388608 bytes"}}' "$out"
check "the daemon still answers afterwards" "200" "$(req /v1/capabilities | cut -d' ' -f1)"

# --- the socket's rules ---
XDG_RUNTIME_DIR=$RUN timeout 20 "$SERVE" 2>"$T_TMP/second.log"
rc=$?
check "a second daemon on the same socket is refused (exit 1)" "1" "$rc"
check_like "... naming the socket" "*another cordon-serve is listening on '$SOCK'*" "$(cat "$T_TMP/second.log")"
mkdir -m 0750 "$T_TMP/run-g"
out=$(XDG_RUNTIME_DIR=$T_TMP/run-g timeout 20 "$SERVE" 2>&1)
check_like "a group-readable runtime directory is refused, named" \
        "*directory '$T_TMP/run-g' has mode 0750; it must be 0700*" "$out"
mkdir -m 0700 "$T_TMP/run-c" && mkdir -m 0750 "$T_TMP/run-c/cordon"
out=$(XDG_RUNTIME_DIR=$T_TMP/run-c timeout 20 "$SERVE" 2>&1)
check_like "a group-readable cordon directory in it too" \
        "*directory '$T_TMP/run-c/cordon' has mode 0750*" "$out"
out=$(env -u XDG_RUNTIME_DIR timeout 20 "$SERVE" 2>&1)
check_like "no XDG_RUNTIME_DIR: refused, naming it and --socket" "*XDG_RUNTIME_DIR is not set*--socket*" "$out"

# --- the attack: the socket handed to a sandbox (its directory bound read-write) ---
# --net open: under the landlock backend the other modes' seccomp filter refuses a connect to
# any host unix socket before the daemon sees it; open lets it through to the daemon's check.
cd "$T_PROJECT" || exit 1
out=$(timeout 60 "$CORDON" run --quiet --net open --rw "$RUN" -- \
        curl -sS --max-time 20 -w ' %{http_code}' --unix-socket "$SOCK" http://cordon/v1/capabilities 2>"$T_TMP/attack.err")
if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
        # The supervisor refuses the connect first (not a socket the command bound:
        # landlock-open-unix.sh); the daemon never sees it.
        check_like "a sandboxed curl on the socket: refused before the daemon (000)" "* 000" "$out"
        check "the same curl outside the sandbox: 200 (positive control)" "200" "$(req /v1/capabilities | cut -d' ' -f1)"
        check "the daemon saw no sandboxed connection" "" "$(grep "refused a connection" "$T_TMP/serve.log")"
else
        check_like "a sandboxed curl on the socket: 403 invalid_request, the reason named" \
                "{\"error\":{\"kind\":\"invalid_request\",\"message\":\"this socket does not serve sandboxed processes: peer pid * is in another pid namespace (a sandbox)*\"}}* 403" "$out"
        check "the same curl outside the sandbox: 200 (positive control)" "200" "$(req /v1/capabilities | cut -d' ' -f1)"
        check_like "the daemon logs the refusal" "*refused a connection: peer pid * is in another pid namespace (a sandbox)*" "$(cat "$T_TMP/serve.log")"
fi

# --- TCP with a bearer token ---
printf 'token-%s\n' "$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$T_TMP/token"
chmod 0644 "$T_TMP/token"
out=$(XDG_RUNTIME_DIR=$RUN timeout 20 "$SERVE" --socket "$RUN/cordon/tcp.sock" --tcp 0 --token-file "$T_TMP/token" 2>&1)
check_like "a token file others can read is refused" "*must be a regular file of ours that only we can read*0644*" "$out"
chmod 0600 "$T_TMP/token"
"$SERVE" --socket "$RUN/cordon/tcp.sock" --tcp 0 --token-file "$T_TMP/token" 2>"$T_TMP/tcp.log" &
pids+=($!)
for _ in $(seq 100); do grep -q '127.0.0.1:' "$T_TMP/tcp.log" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$T_TMP/tcp.log")
url=http://127.0.0.1:$port/v1/capabilities
codes="$(curl -sS -o /dev/null -w '%{http_code}' "$url") $(curl -sS -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer wrong-token-wrong-token' "$url") $(curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(cat "$T_TMP/token")" "$url")"
check "TCP: no token 401, a wrong one 401, the right one 200" "401 401 200" "$codes"

# --- cordon serve ---
check_like "cordon serve --help runs cordon-serve's help" "Usage: cordon-serve *" "$("$CORDON" serve --help 2>&1)"

# --- SIGTERM ---
kill -TERM "$daemon"
wait "$daemon"
check "SIGTERM: exit 0" "0" "$?"
[ -e "$SOCK" ] && not_ok "SIGTERM: the socket is removed" || ok "SIGTERM: the socket is removed"
