#!/usr/bin/env python3
"""A small client of cordon-serve-session's channel (src/serve/holder-proto.h), stdlib only, for
tests/integration/serve-holder.sh. Frames are a 4-byte little-endian length and a JSON object.

  holder-client.py start HOLDER ARGS...      the spec on stdin; runs HOLDER ARGS with a pipe as
                                             fd 3, prints the ready frame; exit 0 when it says ok
  holder-client.py call SOCKET JSON          one request (an "id" is added), prints the reply
  holder-client.py calls SOCKET JSON...      several requests on one connection, all sent
                                             first; prints the replies in the order they come
  holder-client.py read SOCKET PID AFTER MAXBYTES
                                             reads process PID's records after seq AFTER until
                                             MAXBYTES of output were read (0: to the end);
                                             prints {"stdout", "stderr" (text), "last_seq",
                                             "done", "exit"}
  holder-client.py raw SOCKET HEX            sends the bytes, prints "closed" when the holder
                                             closes the connection without a reply, else the
                                             reply
"""
import base64
import fcntl
import json
import os
import socket
import struct
import subprocess
import sys


def send_frame(s, obj):
    data = json.dumps(obj).encode()
    s.sendall(struct.pack("<I", len(data)) + data)


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def recv_frame(s):
    head = recv_exact(s, 4)
    if head is None:
        return None
    (n,) = struct.unpack("<I", head)
    body = recv_exact(s, n)
    return None if body is None else json.loads(body)


def connect(path, timeout=120):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    return s


def start(argv):
    r, w = os.pipe()
    # Out of the way of fd 3, which the holder gets as its write end.
    r2, w2 = fcntl.fcntl(r, fcntl.F_DUPFD_CLOEXEC, 10), fcntl.fcntl(w, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(r)
    os.close(w)
    r, w = r2, w2
    os.dup2(w, 3)
    proc = subprocess.Popen(argv, stdin=sys.stdin, pass_fds=(3,), start_new_session=False)
    os.close(3)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        head = f.read(4)
        if len(head) < 4:
            print(json.dumps({"ok": False, "error": "no ready frame", "status": proc.wait()}))
            return 1
        (n,) = struct.unpack("<I", head)
        msg = json.loads(f.read(n))
    print(json.dumps(msg))
    return 0 if msg.get("ok") else 1


def call(path, requests):
    s = connect(path)
    for i, rq in enumerate(requests, 1):
        rq = dict(rq)
        rq.setdefault("id", i)
        send_frame(s, rq)
    for _ in requests:
        reply = recv_frame(s)
        if reply is None:
            print("closed")
            return 1
        print(json.dumps(reply))
    return 0


def read(path, pid, after, maxbytes):
    out = {"stdout": b"", "stderr": b""}
    done, exit_rec, n = False, None, 0
    s = connect(path)
    rid = 0
    while not done and (maxbytes == 0 or n < maxbytes):
        rid += 1
        send_frame(s, {"id": rid, "op": "process_output", "process_id": pid,
                       "after_seq": after, "wait_ms": 5000})
        reply = recv_frame(s)
        if reply is None or not reply.get("ok"):
            print(json.dumps({"error": reply}))
            return 1
        for rec in reply["result"]["records"]:
            after = rec["seq"]
            if "data" in rec:
                d = base64.b64decode(rec["data"])
                out[rec["stream"]] += d
                n += len(d)
            else:
                exit_rec = rec
        done = reply["result"]["done"]
    s.close()
    print(json.dumps({"stdout": out["stdout"].decode(errors="replace"),
                      "stderr": out["stderr"].decode(errors="replace"),
                      "last_seq": after, "done": done, "exit": exit_rec}))
    return 0


def raw(path, hexbytes):
    s = connect(path, timeout=10)
    s.sendall(bytes.fromhex(hexbytes))
    try:
        reply = recv_frame(s)
    except (ConnectionResetError, json.JSONDecodeError):
        reply = None
    print("closed" if reply is None else json.dumps(reply))
    return 0


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "start":
        return start(args)
    if cmd == "call":
        return call(args[0], [json.loads(args[1])])
    if cmd == "calls":
        return call(args[0], [json.loads(a) for a in args[1:]])
    if cmd == "read":
        return read(args[0], args[1], int(args[2]), int(args[3]))
    if cmd == "raw":
        return raw(args[0], args[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
