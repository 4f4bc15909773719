#!/usr/bin/env python3
"""cordon-serve's session API from Python, with nothing but the standard library.

Start the daemon first (`cordon serve`, see cordon-serve(8)); then

    python3 examples/serve-client.py [--socket PATH]

talks HTTP/1.1 to it over its unix socket ($XDG_RUNTIME_DIR/cordon/serve.sock unless --socket
says otherwise) with http.client, and:

1. creates a session: POST /v1/sessions with a SandboxSpec (here: no network, a label);
2. runs a command in it and waits: POST /v1/sessions/ID/exec with an ExecRequest; the answer is
   an ExecResult {"stdout", "stderr", "exit_code", "timed_out"};
3. starts a process without waiting: POST /v1/sessions/ID/processes, answered with its
   {"process_id"}, and follows its output: GET /v1/sessions/ID/processes/PID/output?after_seq=N,
   an NDJSON stream of {"seq", "stream", "data" (base64)} records and a last
   {"seq", "exit_code", "timed_out"}. The script drops the connection on purpose after a few
   records and reconnects with the last seq it saw: a client that does so loses nothing and sees
   nothing twice (the same holds when a connection breaks, or the daemon restarts);
4. deletes the session: DELETE /v1/sessions/ID (204).

An error answer is {"error": {"kind", "message"}}; the script prints it as "KIND: MESSAGE" and
exits with status 1. Ids are put in paths percent-encoded.
"""
import argparse
import base64
import http.client
import json
import os
import socket
import sys
import time
import urllib.parse

# Bytes of one answer this client reads at most: the daemon is trusted no further.
ANSWER_MAX = 64 << 20


class ApiError(Exception):
    """The daemon's {"error": {"kind", "message"}}, or a transport failure (kind "io")."""

    def __init__(self, kind, message):
        super().__init__(f"{kind}: {message}")
        self.kind, self.message = kind, message


class UnixHTTPConnection(http.client.HTTPConnection):
    """http.client over an AF_UNIX stream socket."""

    def __init__(self, path, timeout=None):
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self.unix_path)
        self.sock = s


def error_of(status, raw):
    try:
        e = json.loads(raw)["error"]
        return ApiError(e["kind"], e["message"])
    except (ValueError, KeyError, TypeError):
        return ApiError("io", f"HTTP {status}: {raw[:200]!r}")


def call(sock, method, path, body=None):
    """One request; the answer's JSON (None for 204)."""
    conn = UnixHTTPConnection(sock)
    try:
        data = None if body is None else json.dumps(body).encode()
        headers = {} if data is None else {"Content-Type": "application/json"}
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        raw = resp.read(ANSWER_MAX + 1)
        if len(raw) > ANSWER_MAX:
            raise ApiError("io", f"the answer to {method} {path} is too large")
        if resp.status // 100 != 2:
            raise error_of(resp.status, raw)
        return json.loads(raw) if raw else None
    except OSError as e:
        raise ApiError("io", f"cannot talk to cordon-serve at {sock}: {e}") from None
    finally:
        conn.close()


def q(segment):
    """An id as one path segment."""
    return urllib.parse.quote(segment, safe="")


def follow(sock, sid, pid, after_seq=0, drop_after=None):
    """Yields the records of a process's output after @after_seq, reconnecting with the last seq
    whenever the connection ends before the exit record. With @drop_after, the first connection
    is closed on purpose after that many records, to show the reconnection."""
    failures = 0
    while True:
        conn = UnixHTTPConnection(sock)
        try:
            conn.request("GET", f"/v1/sessions/{q(sid)}/processes/{q(pid)}/output"
                                f"?after_seq={after_seq}")
            resp = conn.getresponse()
            if resp.status != 200:
                raise error_of(resp.status, resp.read(ANSWER_MAX))
            while True:
                line = resp.readline(1 << 20)
                if not line:
                    break  # the stream ended early: reconnect
                if not line.strip():
                    continue
                rec = json.loads(line)
                if "error" in rec:
                    raise error_of(200, line)
                if rec["seq"] <= after_seq:
                    continue  # seen before the connection broke
                after_seq = rec["seq"]
                failures = 0
                yield rec
                if "exit_code" in rec:
                    return
                if drop_after is not None:
                    drop_after -= 1
                    if drop_after == 0:
                        print(f"  (dropping the connection after seq {after_seq}, "
                              f"reconnecting with after_seq={after_seq})")
                        drop_after = None
                        break
        except (OSError, http.client.HTTPException) as e:
            failures += 1
            if failures > 50:
                raise ApiError("io", f"the output stream cannot be reached: {e}") from None
            time.sleep(0.2)
        finally:
            conn.close()


def main():
    default = os.path.join(os.environ.get("XDG_RUNTIME_DIR", "/nonexistent"), "cordon",
                           "serve.sock")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--socket", default=default, help=f"the daemon's socket ({default})")
    sock = ap.parse_args().socket

    print("capabilities:", json.dumps(call(sock, "GET", "/v1/capabilities"), sort_keys=True))

    spec = {"labels": {"example": "serve-client.py"},
            "network_policy": {"mode": "limited", "allowed_hosts": []}}
    session = call(sock, "POST", "/v1/sessions", spec)
    sid = session["id"]
    print(f"created session {sid} ({session['state']})")
    try:
        result = call(sock, "POST", f"/v1/sessions/{q(sid)}/exec",
                      {"command": "sh", "args": ["-c", "echo hello from $0; cat; exit 3",
                                                 "the sandbox"],
                       "stdin": "a line on stdin\n"})
        print("exec:", json.dumps(result, sort_keys=True))

        # A line every 50 ms, so that they come as records of their own.
        script = ('i=1; while [ $i -le 20 ]; do echo "line $i"; i=$((i+1)); sleep 0.05; done; '
                  'exit 7')
        pid = call(sock, "POST", f"/v1/sessions/{q(sid)}/processes",
                   {"command": "sh", "args": ["-c", script]})["process_id"]
        print(f"process {pid}:")
        for rec in follow(sock, sid, str(pid), drop_after=3):
            if "exit_code" in rec:
                print(f"  seq {rec['seq']}: exit code {rec['exit_code']}, "
                      f"timed out: {rec['timed_out']}")
            else:
                text = base64.b64decode(rec["data"]).decode(errors="replace")
                for line in text.splitlines():
                    print(f"  seq {rec['seq']} {rec['stream']}: {line}")
    finally:
        call(sock, "DELETE", f"/v1/sessions/{q(sid)}")
        print(f"deleted session {sid}")


if __name__ == "__main__":
    try:
        main()
    except ApiError as e:
        print(f"serve-client.py: {e}", file=sys.stderr)
        sys.exit(1)
