# Helpers for the network tests: the test internet that tests/run-tap.sh brings up as root
# (tests/lib/testnet.sh), and probes that run inside cordon. Source it instead of tap.sh, then
# call net_require before the plan.
#
# Environment: T_NET_ENV, the test internet's state file (KEY=VALUE lines: NET_OK_ADDR,
# NET_DNS, NET_HTTP_PORT... see tests/lib/testnet.sh), set by tests/run-tap.sh.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

NET_PROXY=127.0.0.1:3128 # where the proxied mode's proxy listens inside the sandbox
NET_RESOLVER=127.0.0.53  # where the filtered mode's resolver (cordon's) listens inside the sandbox

# net_require: loads the test internet's variables, or skips the whole file when it is not up
# (a failure under CORDON_TESTS_MUST_RUN=1).
net_require() {
        local why=
        if [ -z "${T_NET_ENV:-}" ] || [ ! -r "$T_NET_ENV" ]; then
                why="the test internet is not up (tests/run-tap.sh brings it up when run as root)"
        else
                . "$T_NET_ENV"
                [ -e "/run/netns/$NET_NS" ] || why="the test internet's namespace $NET_NS is gone"
        fi
        [ -z "$why" ] && return 0
        if [ "${CORDON_TESTS_MUST_RUN:-0}" = 1 ]; then
                echo "1..1"
                echo "not ok 1 - the test internet is up"
                echo "#   skipped, but CORDON_TESTS_MUST_RUN=1: $why"
        else
                echo "1..0 # SKIP $why"
        fi
        exit 0
}

# NET_PROBE: a python3 program for one network probe; prints "OK:<what came back>", the errno
# name of the OSError (ECONNREFUSED, ENETUNREACH, EACCES...), TIMEOUT, or a protocol answer:
#   tcp HOST PORT           connect, send "ping", read the echo          -> OK:ping
#   udp HOST PORT           send "ping" in a datagram on a connected socket (so ICMP errors
#                           come back as errno), read the echo            -> OK:ping
#   dns SERVER NAME [AAAA]  one query over UDP                            -> OK:addr[,addr] |
#                           RCODE:n | NODATA
#   http HOST PORT DATA     send DATA (backslash escapes decoded: \r\n, \x00...) to HOST:PORT
#                           and read to the end -> CODE|last body line (CODE: the status)
#   connect HOST PORT TARGET
#                           HTTP CONNECT TARGET (host:port, escapes decoded) through the proxy at
#                           HOST:PORT; on 200 send "ping" down the tunnel -> 200|ping, else
#                           CODE|last body line
#   socks HOST PORT TARGET TPORT [CMD]
#                           SOCKS5 without auth through HOST:PORT, CMD (1 CONNECT, 2 BIND,
#                           3 UDP ASSOCIATE; default 1) to TARGET (an IPv4 or IPv6 literal is
#                           sent as such, anything else as a name, escapes decoded); on success
#                           send "ping" -> REP:0|ping, else REP:<reply code> (0x02: not allowed)
#   multi "KIND ARG..." ... several probes in one process, one answer per line (the arguments of
#                           each split on single spaces)
NET_PROBE='import codecs, errno, socket, struct, sys

def esc(s):
    return codecs.decode(s, "unicode_escape").encode("latin-1")

def conn(host, port):
    return socket.create_connection((host, int(port)), timeout=5)

def readall(s):
    data = b""
    try:
        while chunk := s.recv(65536):
            data += chunk
    except socket.timeout:
        if not data:
            raise
    return data

def reply(data):
    head, _, body = data.partition(b"\r\n\r\n")
    code = head.split(b" ")[1].decode() if head.startswith(b"HTTP/") else "NOHTTP"
    lines = body.decode("latin-1").strip().splitlines()
    return code + "|" + (lines[-1] if lines else "")

def dns(server, name, qtype):
    t = 28 if qtype == "AAAA" else 1
    q = struct.pack(">HHHHHH", 0x4242, 0x0100, 1, 0, 0, 0)
    for label in name.rstrip(".").split("."):
        q += bytes([len(label)]) + label.encode()
    q += b"\0" + struct.pack(">HH", t, 1)
    s = socket.socket(socket.AF_INET6 if ":" in server else socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(3)
    s.sendto(q, (server, 53))
    r = s.recv(4096)
    rcode = r[3] & 15
    if rcode:
        return "RCODE:%d" % rcode
    ancount = struct.unpack(">H", r[6:8])[0]
    i = len(q)
    out = []
    for _ in range(ancount):
        while r[i] and r[i] < 192:
            i += r[i] + 1
        i += 2 if r[i] >= 192 else 1
        rtype, _, _, rdlen = struct.unpack(">HHIH", r[i:i + 10])
        i += 10
        if rtype == 1:
            out.append(socket.inet_ntop(socket.AF_INET, r[i:i + rdlen]))
        elif rtype == 28:
            out.append(socket.inet_ntop(socket.AF_INET6, r[i:i + rdlen]))
        i += rdlen
    return "OK:" + ",".join(sorted(out)) if out else "NODATA"

def main(a):
    if a[0] == "tcp":
        s = conn(a[1], a[2]); s.sendall(b"ping"); return "OK:" + s.recv(64).decode()
    if a[0] == "udp":
        fam = socket.AF_INET6 if ":" in a[1] else socket.AF_INET
        s = socket.socket(fam, socket.SOCK_DGRAM); s.settimeout(3)
        s.connect((a[1], int(a[2]))); s.send(b"ping"); return "OK:" + s.recv(64).decode()
    if a[0] == "dns":
        return dns(a[1], a[2], a[3] if len(a) > 3 else "A")
    if a[0] == "http":
        s = conn(a[1], a[2]); s.sendall(esc(a[3])); return reply(readall(s))
    if a[0] == "connect":
        s = conn(a[1], a[2])
        t = esc(a[3])
        s.sendall(b"CONNECT " + t + b" HTTP/1.1\r\nHost: " + t + b"\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(1)
            if not chunk:
                break
            head += chunk
        r = reply(head)
        if not r.startswith("200|"):
            return reply(head + readall(s))
        s.sendall(b"ping")
        return "200|" + s.recv(64).decode()
    if a[0] == "socks":
        s = conn(a[1], a[2])
        s.sendall(b"\x05\x01\x00")
        if s.recv(2) != b"\x05\x00":
            return "NOAUTH"
        cmd = int(a[5]) if len(a) > 5 else 1
        target = esc(a[3])
        try:
            addr = b"\x01" + socket.inet_pton(socket.AF_INET, a[3])
        except OSError:
            try:
                addr = b"\x04" + socket.inet_pton(socket.AF_INET6, a[3])
            except OSError:
                addr = b"\x03" + bytes([len(target)]) + target
        s.sendall(b"\x05" + bytes([cmd]) + b"\x00" + addr + struct.pack(">H", int(a[4])))
        r = s.recv(4)
        if len(r) < 2:
            return "CLOSED"
        if r[1] != 0:
            return "REP:%d" % r[1]
        rest = {1: 4, 4: 16}.get(r[3], None)
        s.recv((rest if rest is not None else s.recv(1)[0]) + 2)
        s.sendall(b"ping")
        return "REP:0|" + s.recv(64).decode()

def one(a):
    try:
        return main(a)
    except socket.timeout:
        return "TIMEOUT"
    except OSError as e:
        return errno.errorcode[e.errno] if e.errno else type(e).__name__

if sys.argv[1] == "multi":
    for spec in sys.argv[2:]:
        print(one(spec.split(" ")), flush=True)
else:
    print(one(sys.argv[1:]))'

# in_cordon OPTION... -- CMD...: runs cordon in the scratch project with the options (network
# options, mostly); stdout+stderr in $out, status in $rc. Bounded, so a hung proxy fails a test
# instead of the whole file.
in_cordon() {
        # The note that an exception lifts nothing and the count of the proxy's (or the
        # resolver's) refusals at the end (net-allow-only.sh and net-filtered-dns.sh test them)
        # are no answers; the count may follow an answer
        # without a newline (curl -w) and is always last.
        out=$(cd "$T_PROJECT" && timeout 60 "$CORDON" run --quiet "$@" 2>&1 |
                grep -v '^cordon: warning: NETWORK_BLOCKLIST_EXCEPT .* nothing: an exception lifts a block' |
                sed -e 's/cordon: the proxy refused [0-9]* .*(--net-log FILE records each.*)$//' \
                        -e '/^cordon: the sandbox.s resolver refused [0-9]* .*(--net-log FILE records each.*)$/d'
                exit "${PIPESTATUS[0]}"); rc=$?
}

# probe OPTION... -- KIND ARG...: runs NET_PROBE (above) inside cordon; $out, $rc.
probe() {
        local opts=()
        while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
        shift
        in_cordon "${opts[@]}" -- python3 -c "$NET_PROBE" "$@"
}

# host_probe KIND ARG...: the same probe run on the host, outside any sandbox (the controls).
host_probe() {
        out=$(timeout 60 python3 -c "$NET_PROBE" "$@" 2>&1); rc=$?
}

# devtcp_probe OPTION... -- HOST PORT: bash's /dev/tcp inside cordon (no python, no proxy
# variables), printing OK:ping or the errno name of the failed connect.
devtcp_probe() {
        local opts=()
        while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
        shift
        in_cordon "${opts[@]}" -- bash -c 'exec 3<>"/dev/tcp/$1/$2" && printf ping >&3 &&
                head -c 4 <&3 | sed "s/^/OK:/"' devtcp "$@"
        case $out in
        *"Connection refused"*) out=ECONNREFUSED ;;
        *"Network is unreachable"*) out=ENETUNREACH ;;
        *"No route to host"*) out=EHOSTUNREACH ;;
        *"Permission denied"*) out=EACCES ;;
        *"Operation not permitted"*) out=EPERM ;;
        *"Connection timed out"*) out=ETIMEDOUT ;;
        esac
}

# A curl that fails fast and says why; through the proxy its environment variables apply.
CURL=(curl -sS --max-time 15)

# decide KIND DESCRIPTION OPTION... -- TARGET=VERDICT...: one proxied sandbox (--net proxied,
# names resolved by the test internet's DNS, plus the options), and through its proxy one
# request per TARGET (host:port, [v6]:port), by KIND: connect (HTTP CONNECT, then "ping" down
# the tunnel to a TCP echo), socks (SOCKS5 CONNECT, the same) or http (an absolute-URI GET of
# http://TARGET/echo from the HTTP service). VERDICT: allow (the echo answered), deny (403,
# SOCKS5 reply 2: refused by the rules), bad (400, SOCKS5 reply 2: refused as malformed) or
# notallow (anything but a tunnel or an answer). Backslash escapes in TARGET are decoded (\x00).
# One TAP line per target.
decide() {
        local kind=$1 desc=$2 opts=() specs=() targets=() want=() t v h p i got lines
        shift 2
        while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
        shift
        for t; do
                v=${t##*=} t=${t%=*}
                targets+=("$t") want+=("$v")
                case $kind in
                connect) specs+=("connect ${NET_PROXY%:*} ${NET_PROXY##*:} $t") ;;
                socks)
                        h=${t%:*} p=${t##*:}
                        h=${h#[} h=${h%]}
                        specs+=("socks ${NET_PROXY%:*} ${NET_PROXY##*:} $h $p") ;;
                http) specs+=("http ${NET_PROXY%:*} ${NET_PROXY##*:} GET\\x20http://$t/echo\\x20HTTP/1.1\\r\\nHost:\\x20$t\\r\\nConnection:\\x20close\\r\\n\\r\\n") ;;
                esac
        done
        local mode=(--net proxied)
        [ -n "${DECIDE_NO_MODE:-}" ] && mode=() # the options choose the mode (--network-policy)
        in_cordon "${mode[@]}" --proxy-dns "$NET_DNS" "${opts[@]}" -- python3 -c "$NET_PROBE" multi "${specs[@]}"
        # cordon's own lines (an exception that lifts nothing is a warning) are not answers.
        mapfile -t lines < <(printf '%s\n' "$out" | grep -v '^cordon: ')
        for i in "${!targets[@]}"; do
                got=${lines[$i]:-}
                case $kind:${want[$i]}:$got in
                connect:allow:"200|ping" | socks:allow:"REP:0|ping" | http:allow:"200|method=GET "*) ok "$desc: $kind ${targets[$i]} allowed" ;;
                connect:deny:"403|"* | http:deny:"403|"* | socks:deny:REP:2) ok "$desc: $kind ${targets[$i]} denied" ;;
                connect:bad:"400|"* | http:bad:"400|"* | socks:bad:REP:2) ok "$desc: $kind ${targets[$i]} refused as malformed" ;;
                *:notallow:*)
                        if [[ $got == 200\|* || $got == REP:0\|* ]]; then
                                not_ok "$desc: $kind ${targets[$i]} not allowed" "got: $got"
                        else
                                ok "$desc: $kind ${targets[$i]} not allowed ($got)"
                        fi ;;
                *) not_ok "$desc: $kind ${targets[$i]} (want ${want[$i]})" "got: $got" "cordon exit status $rc, all output:" "${lines[@]}" ;;
                esac
        done
}
