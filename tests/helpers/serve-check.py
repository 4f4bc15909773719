#!/usr/bin/env python3
"""Checks of cordon-serve's answers for tests/integration/serve-sessions.sh (stdlib only).

  serve-check.py shape KIND FILE   "ok", or what differs from harn's serde shape KIND:
                                   caps, session, sessions, exec, snapshot, snapshots,
                                   processes, error
  serve-check.py get EXPR FILE     the value of EXPR (Python, over d, the JSON of FILE)
  serve-check.py stream FILE...    the NDJSON records of the files, in order: their seqs must
                                   follow each other with no gap and no repeat; prints the
                                   bytes of stdout, base64-decoded, then (on stderr) the last
                                   record's exit_code, or "no end"
"""
import base64
import json
import re
import sys


def fail(msg):
    print(msg)
    sys.exit(0)


def keys(d, want, where):
    if not isinstance(d, dict):
        fail(f"{where}: not an object: {d!r}")
    if list(d.keys()) != want:
        fail(f"{where}: keys {list(d.keys())}, expected {want} (in this order)")


def string_map(d, where):
    if not isinstance(d, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in d.items()
    ):
        fail(f"{where}: not a map of strings: {d!r}")
    if list(d.keys()) != sorted(d.keys()):
        fail(f"{where}: keys not in BTreeMap order: {list(d.keys())}")


def session(d, where="session"):
    keys(d, ["id", "backend", "state", "mounts", "metadata"], where)
    if not isinstance(d["id"], str) or not d["id"].strip():
        fail(f"{where}.id: {d['id']!r}")
    if not isinstance(d["backend"], str) or not d["backend"]:
        fail(f"{where}.backend: {d['backend']!r}")
    if d["state"] not in ("provisioned", "running", "suspended", "terminated"):
        fail(f"{where}.state: {d['state']!r}")
    if not isinstance(d["mounts"], list):
        fail(f"{where}.mounts: not an array")
    for i, m in enumerate(d["mounts"]):
        keys(m, ["target", "access", "host_path"], f"{where}.mounts[{i}]")
        if m["access"] not in ("read_only", "read_write"):
            fail(f"{where}.mounts[{i}].access: {m['access']!r}")
        if not (m["host_path"] is None or isinstance(m["host_path"], str)):
            fail(f"{where}.mounts[{i}].host_path: {m['host_path']!r}")
        if not m["target"].startswith("/"):
            fail(f"{where}.mounts[{i}].target: {m['target']!r}")
    string_map(d["metadata"], f"{where}.metadata")


def snapshot(d, where="snapshot"):
    keys(d, ["session_id", "backend", "snapshot_id", "metadata"], where)
    for k in ("session_id", "backend", "snapshot_id"):
        if not isinstance(d[k], str) or not d[k]:
            fail(f"{where}.{k}: {d[k]!r}")
    string_map(d["metadata"], f"{where}.metadata")


def shape(kind, d):
    if kind == "caps":
        keys(d, ["local_process_sandbox", "network_policy", "snapshot", "resume",
                 "suspend_on_idle"], "caps")
        if not all(isinstance(v, bool) for v in d.values()):
            fail(f"caps: not all booleans: {d!r}")
    elif kind == "session":
        session(d)
    elif kind == "sessions":
        if not isinstance(d, list):
            fail("sessions: not an array")
        for i, s in enumerate(d):
            session(s, f"sessions[{i}]")
    elif kind == "exec":
        keys(d, ["stdout", "stderr", "exit_code", "timed_out"], "exec")
        if not (isinstance(d["stdout"], str) and isinstance(d["stderr"], str)
                and isinstance(d["exit_code"], int) and isinstance(d["timed_out"], bool)):
            fail(f"exec: types: {d!r}")
    elif kind == "snapshot":
        snapshot(d)
    elif kind == "snapshots":
        if not isinstance(d, list):
            fail("snapshots: not an array")
        for i, s in enumerate(d):
            snapshot(s, f"snapshots[{i}]")
    elif kind == "processes":
        if not isinstance(d, list):
            fail("processes: not an array")
        for i, p in enumerate(d):
            keys(p, ["process_id", "command", "pty", "running", "exit_code"], f"processes[{i}]")
            if not re.fullmatch(r"p[1-9][0-9]*", p["process_id"]):
                fail(f"processes[{i}].process_id: {p['process_id']!r}")
    elif kind == "error":
        e = d.get("error") if isinstance(d, dict) else None
        if not isinstance(d, dict) or list(d.keys()) != ["error"] or not isinstance(e, dict):
            fail(f"error: not {{\"error\": {{...}}}}: {d!r}")
        want = ["kind", "message"] + (["backend", "operation"] if e.get("kind") == "unsupported"
                                      else [])
        keys(e, want, "error")
        if e["kind"] not in ("session_not_found", "unsupported", "invalid_request", "lifecycle",
                             "exec", "network_policy", "io"):
            fail(f"error.kind: {e['kind']!r}")
        if not isinstance(e["message"], str) or not e["message"]:
            fail(f"error.message: {e['message']!r}")
    else:
        fail(f"unknown shape {kind}")
    print("ok")


def stream(files):
    out = b""
    last = None
    end = "no end"
    for f in files:
        with open(f, "rb") as fh:
            for n, line in enumerate(fh.read().split(b"\n")):
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except ValueError:
                    print(f"{f}:{n + 1}: not JSON: {line[:80]!r}", file=sys.stderr)
                    sys.exit(1)
                seq = r["seq"]
                if last is not None and seq != last + 1:
                    print(f"{f}:{n + 1}: seq {seq} after {last}", file=sys.stderr)
                    sys.exit(1)
                last = seq
                want = (["seq", "stream", "data"] if "data" in r
                        else ["seq", "exit_code", "timed_out"])
                if list(r.keys()) != want:
                    print(f"{f}:{n + 1}: keys {list(r.keys())}", file=sys.stderr)
                    sys.exit(1)
                if "data" in r and r["stream"] == "stdout":
                    out += base64.b64decode(r["data"], validate=True)
                elif "data" not in r:
                    end = f"exit_code {r['exit_code']}"
    sys.stdout.buffer.write(out)
    print(end, file=sys.stderr)


def main():
    cmd = sys.argv[1]
    if cmd == "stream":
        return stream(sys.argv[2:])
    with open(sys.argv[3]) as fh:
        try:
            d = json.load(fh)
        except ValueError as e:
            fail(f"not JSON: {e}")
    if cmd == "shape":
        shape(sys.argv[2], d)
    elif cmd == "get":
        print(eval(sys.argv[2], {"d": d}))


if __name__ == "__main__":
    main()
