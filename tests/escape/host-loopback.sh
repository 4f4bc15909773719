#!/usr/bin/env bash
# Attack: talk to a service the host runs on 127.0.0.1 (an HTTP server on a random port).
# The sandbox's loopback is its own. Control: the same request works outside.
. "$(dirname "$0")/../lib/tap.sh"

GET='import errno, socket, sys
s = socket.socket()
s.settimeout(5)
try:
    s.connect(("127.0.0.1", int(sys.argv[1])))
    s.sendall(b"GET /secret.txt HTTP/1.0\r\n\r\n")
    data = b""
    while chunk := s.recv(4096):
        data += chunk
    print("OK:" + data.decode().split("\r\n\r\n", 1)[-1].strip())
except OSError as e:
    print(errno.errorcode[e.errno] if e.errno else type(e).__name__)'
SERVE='import http.server, os, sys
os.chdir(sys.argv[1])
srv = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
open(sys.argv[2] + ".tmp", "w").write(str(srv.server_address[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
srv.serve_forever()'

mkdir "$T_TMP/www"
echo "l00pback-s3cret" > "$T_TMP/www/secret.txt"
python3 -c "$SERVE" "$T_TMP/www" "$T_TMP/port" 2>/dev/null &
server=$!
trap 'kill "$server" 2>/dev/null' EXIT
for _ in $(seq 100); do [ -e "$T_TMP/port" ] && break; sleep 0.05; done
port=$(cat "$T_TMP/port")

plan 4
check "control: the host server answers outside on port $port" "OK:l00pback-s3cret" \
        "$(python3 -c "$GET" "$port" 2>&1)"
run_view_only python3 -c "$GET" "$port"
check "connecting to 127.0.0.1:$port inside, namespace view alone: ECONNREFUSED" "ECONNREFUSED" "$out"
run_sandboxed python3 -c "$GET" "$port"
check "connecting to 127.0.0.1:$port inside, every layer: ECONNREFUSED" "ECONNREFUSED" "$out"
run_sandboxed python3 -c 'import socket; print(socket.if_nameindex())'
check "the sandbox has only its own loopback interface" "[(1, 'lo')]" "$out"
