#!/usr/bin/env python3
"""The services of the test internet (tests/lib/testnet.sh runs this inside its "remote" network
namespace), and the fixtures they serve.

  testnet.py build DIR            builds DIR/www: hello.txt, a bare git repository served over the
                                  dumb HTTP protocol (git/repo.git), a pip "simple" index with one
                                  pure-Python wheel (simple/, packages/) and an npm package tarball
                                  (npm/cordon-testpkg/-/cordon-testpkg-1.0.0.tgz)
  testnet.py serve DIR OWNER -- DNSMASQ-ARGV...
                                  serves DIR/www over HTTP, TCP and UDP echo on the ports in
                                  DIR/ports, starts dnsmasq with DNSMASQ-ARGV as its child, writes
                                  DIR/ready once everything listens; exits (killing dnsmasq) on
                                  SIGTERM or as soon as the process OWNER (pid:starttime) is gone,
                                  so nothing outlives the test run even when its trap never ran.

HTTP: /echo... answers "method=M path=P host=H local=A port=N" (the request line's target as
received, the Host header, the address and port the connection arrived on); /npm/<name> is the
npm package document, its tarball URL built from the Host header so it works by name and by
address; /status/<code> answers that status; everything else is static from DIR/www.
"""
import base64
import ctypes
import hashlib
import http.server
import io
import json
import os
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import tarfile
import threading
import time
import zipfile

PKG = "cordon-testpkg"
WHEEL = "cordon_testpkg-1.0-py3-none-any.whl"
NPM_TGZ = PKG + "-1.0.0.tgz"


def write(path, data, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(data)


def build_wheel(www):
    files = {
        "cordon_testpkg/__init__.py": b'GREETING = "hello from cordon-testpkg"\n',
        "cordon_testpkg-1.0.dist-info/METADATA":
            b"Metadata-Version: 2.1\nName: cordon-testpkg\nVersion: 1.0\n"
            b"Summary: a test package served by cordon's test internet\n",
        "cordon_testpkg-1.0.dist-info/WHEEL":
            b"Wheel-Version: 1.0\nGenerator: cordon-testnet\nRoot-Is-Purelib: true\n"
            b"Tag: py3-none-any\n",
    }
    record = ""
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record += "%s,sha256=%s,%d\n" % (name, digest, len(data))
    record += "cordon_testpkg-1.0.dist-info/RECORD,,\n"
    files["cordon_testpkg-1.0.dist-info/RECORD"] = record.encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    data = buf.getvalue()
    write(os.path.join(www, "packages", WHEEL), data, "wb")
    sha = hashlib.sha256(data).hexdigest()
    write(os.path.join(www, "simple", "index.html"),
          '<!DOCTYPE html><html><body><a href="%s/">%s</a></body></html>\n' % (PKG, PKG))
    write(os.path.join(www, "simple", PKG, "index.html"),
          '<!DOCTYPE html><html><body><a href="../../packages/%s#sha256=%s">%s</a></body></html>\n'
          % (WHEEL, sha, WHEEL))


def build_npm(www):
    buf = io.BytesIO()
    members = {
        "package/package.json": json.dumps({"name": PKG, "version": "1.0.0", "main": "index.js",
                                            "license": "MIT"}).encode(),
        "package/index.js": b'module.exports = "hello from cordon-testpkg";\n',
    }
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            t.addfile(info, io.BytesIO(data))
    data = buf.getvalue()
    write(os.path.join(www, "npm", PKG, "-", NPM_TGZ), data, "wb")
    meta = {"shasum": hashlib.sha1(data).hexdigest(),
            "integrity": "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()}
    write(os.path.join(www, "npm", PKG + ".dist.json"), json.dumps(meta))


def build_git(dirpath, www):
    src = os.path.join(dirpath, "git-src")
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", HOME=dirpath, GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
               GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    ident = ["-c", "user.name=Cordon Testnet", "-c", "user.email=testnet@example.invalid",
             "-c", "init.defaultBranch=main"]
    run = lambda *a: subprocess.run(["git"] + ident + list(a), env=env, check=True,
                                    stdout=subprocess.DEVNULL)
    run("init", "-q", src)
    write(os.path.join(src, "README"), "hello from the testnet git repository\n")
    run("-C", src, "add", "README")
    run("-C", src, "commit", "-q", "-m", "testnet fixture")
    bare = os.path.join(www, "git", "repo.git")
    run("clone", "-q", "--bare", src, bare)
    run("-C", bare, "update-server-info")
    shutil.rmtree(src)


def build(dirpath):
    www = os.path.join(dirpath, "www")
    write(os.path.join(www, "hello.txt"), "hello from the testnet\n")
    build_wheel(www)
    build_npm(www)
    build_git(dirpath, www)


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    server_version = "cordon-testnet"

    def log_message(self, *args):
        pass

    def local(self):
        addr, port = self.connection.getsockname()[:2]
        return (addr[7:] if addr.startswith("::ffff:") else addr), port

    def reply(self, code, body, ctype="text/plain"):
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        return True

    def route(self):
        path = self.path
        if "://" in path:  # absolute form: route on its path
            path = "/" + path.split("://", 1)[1].partition("/")[2]
        if path.startswith("/echo"):
            addr, port = self.local()
            return self.reply(200, "method=%s path=%s host=%s local=%s port=%d\n"
                              % (self.command, self.path, self.headers.get("Host", ""), addr, port))
        if path.startswith("/status/"):
            return self.reply(int(path[8:11]), "status %s\n" % path[8:11])
        parts = path.split("?")[0].strip("/").split("/")
        if len(parts) == 2 and parts[0] == "npm" and parts[1] == PKG:
            meta = json.load(open(os.path.join(self.directory, "npm", PKG + ".dist.json")))
            host = self.headers.get("Host") or "%s:%d" % self.local()
            meta["tarball"] = "http://%s/npm/%s/-/%s" % (host, PKG, NPM_TGZ)
            version = {"name": PKG, "version": "1.0.0", "main": "index.js", "dist": meta}
            doc = {"name": PKG, "dist-tags": {"latest": "1.0.0"}, "versions": {"1.0.0": version}}
            return self.reply(200, json.dumps(doc), "application/json")
        self.path = path
        return None

    def do_GET(self):
        if self.route() is None:
            super().do_GET()

    def do_HEAD(self):
        if self.route() is None:
            super().do_HEAD()

    def do_POST(self):
        if self.route() is None:
            self.reply(405, "method not allowed\n")


def dual_stack(kind):
    s = socket.socket(socket.AF_INET6, kind)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    return s


class HTTPServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    address_family = socket.AF_INET6
    daemon_threads = True

    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()


def tcp_echo(srv):
    def one(c):
        with c:
            try:
                while data := c.recv(65536):
                    c.sendall(data)
            except OSError:
                pass
    while True:
        c, _ = srv.accept()
        threading.Thread(target=one, args=(c,), daemon=True).start()


def udp_echo(s):
    while True:
        data, peer = s.recvfrom(65536)
        s.sendto(data, peer)


def start_time(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == "Z" else fields[19]


def serve(dirpath, owner, dnsmasq_argv):
    ports = dict(line.strip().split("=", 1) for line in open(os.path.join(dirpath, "ports")))
    www = os.path.join(dirpath, "www")
    handler = lambda *a, **k: Handler(*a, directory=www, **k)
    for port in ports["http"].split():
        srv = HTTPServer(("::", int(port)), handler)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
    for port in ports["tcp_echo"].split():
        s = dual_stack(socket.SOCK_STREAM)
        s.bind(("::", int(port)))
        s.listen(128)
        threading.Thread(target=tcp_echo, args=(s,), daemon=True).start()
    # One UDP socket per address, so that each answer comes from the address it was sent to
    # (a connected client drops it otherwise).
    for port in ports["udp_echo"].split():
        for addr in ports["addrs"].split():
            s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
            s.bind((addr, int(port)))
            threading.Thread(target=udp_echo, args=(s,), daemon=True).start()
    # dnsmasq dies with this process (PR_SET_PDEATHSIG; it keeps root, --user=root, since a
    # change of credentials would clear that).
    libc = ctypes.CDLL(None, use_errno=True)
    dns = subprocess.Popen(dnsmasq_argv, stdin=subprocess.DEVNULL,
                           preexec_fn=lambda: libc.prctl(1, signal.SIGKILL, 0, 0, 0))
    write(os.path.join(dirpath, "dnsmasq.pid"), str(dns.pid))

    def stop(*_):
        dns.terminate()
        try:
            dns.wait(2)
        except subprocess.TimeoutExpired:
            dns.kill()
        os._exit(0)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, stop)

    # Ready once dnsmasq answers a query on its listening address.
    query = b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x02ok\x04test\x07example\x00\x00\x01\x00\x01"
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.settimeout(0.05)
    for _ in range(100):
        if dns.poll() is not None:
            stop()
        try:
            probe.sendto(query, (ports["dns"], 53))
            probe.recv(512)
            break
        except OSError:
            time.sleep(0.02)
    write(os.path.join(dirpath, "ready.tmp"), str(os.getpid()))
    os.rename(os.path.join(dirpath, "ready.tmp"), os.path.join(dirpath, "ready"))

    owner_pid, owner_start = owner.split(":")
    try:
        while start_time(int(owner_pid)) == owner_start and dns.poll() is None:
            time.sleep(0.5)
    finally:
        stop()


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    elif sys.argv[1] == "serve":
        serve(sys.argv[2], sys.argv[3], sys.argv[5:])
    else:
        sys.exit("usage: testnet.py build DIR | serve DIR OWNER -- DNSMASQ-ARGV...")
