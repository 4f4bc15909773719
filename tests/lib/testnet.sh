#!/usr/bin/env bash
# The test internet: a network namespace "remote" joined to the host by a veth pair, with
# addresses in 198.18.0.0/15 (benchmarking space; the /24s it takes are ones nothing else here
# uses), serving HTTP, TCP and UDP echo and DNS (dnsmasq) that answers test names, some
# of them into blocked ranges. Root only.
#
#   testnet.sh up [--owner PID]   builds one and prints the path of its state file (KEY=VALUE
#                                 lines, world-readable, for tests to source); its services exit
#                                 on their own once PID (default: the caller) is gone
#   testnet.sh down STATE_FILE    removes everything that one created: its processes (only the
#                                 pids it recorded, checked to live in its namespace), the
#                                 namespace, the veth pair, the state directory
#   testnet.sh down --stale       removes every test internet whose owner is gone
#
#   testnet.sh pick               prints the slot N up would take now, or refuses as up would
#
# Several may run at once (parallel test runs): each takes a free slot N and uses 198.18.N.0/24,
# 198.19.N.0/24 (routed over the same veth, for CIDR rules) and fd00:198:18:N+1::/64, all held in
# the state file, so tests name no address themselves. A slot is free when no other test
# internet holds it and nothing else on the host uses an address or route in either /24; up
# refuses only when no slot is free. Up takes well under a second.
set -u
PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
base=/run/cordon-testnet
lib=$(cd "$(dirname "$0")" && pwd)

die() { echo "testnet: $*" >&2; exit 1; }

# The "pid:starttime" of a live process, or nothing.
proc_id() {
        local stat pid=$1
        stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
        stat=${stat##*) }
        set -- $stat
        echo "$pid:${20}"
}

owner_alive() { # owner_alive STATE_DIR
        local want pid
        want=$(cat "$1/owner" 2>/dev/null) || return 1
        pid=${want%%:*}
        [ "$(proc_id "$pid")" = "$want" ] && [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" != Z ]
}

# Kills the process recorded in FILE when it still lives in the namespace NS.
kill_recorded() { # kill_recorded FILE NS
        local pid nsino
        pid=$(cat "$1" 2>/dev/null) || return 0
        nsino=$(stat -L -c %i "/run/netns/$2" 2>/dev/null) || return 0
        [ "$(stat -L -c %i "/proc/$pid/ns/net" 2>/dev/null)" = "$nsino" ] || return 0
        kill -TERM "$pid" 2>/dev/null
        for _ in $(seq 50); do
                [ "$(stat -L -c %i "/proc/$pid/ns/net" 2>/dev/null)" = "$nsino" ] || return 0
                sleep 0.02
        done
        kill -KILL "$pid" 2>/dev/null
}

down_dir() { # down_dir STATE_DIR
        local d=$1 n
        n=${d##*/}
        case $n in '' | *[!0-9]*) die "not a test internet state directory: $d" ;; esac
        kill_recorded "$d/server.pid" "cordon-remote-$n"
        kill_recorded "$d/dnsmasq.pid" "cordon-remote-$n"
        ip netns del "cordon-remote-$n" 2>/dev/null
        ip link del "ctn${n}h" 2>/dev/null
        rm -rf "$d"
}

# The host's addresses and routes in 198.18.0.0/15 that are not a test internet's, one a line.
foreign_lines() {
        local line
        while IFS= read -r line; do
                case $line in *" dev ctn"[0-9]*[hr]" "* | *" dev ctn"[0-9]*[hr] | [0-9]*": ctn"[0-9]*[hr]" "*) continue ;; esac
                printf '%s\n' "$line"
        done < <({ ip -o -4 addr show; ip -4 route show table all; } | grep -E '(^|[ /])198\.1[89]\.')
}

# The third octets N of the /24s in 198.18.0.0/15 that anything not ours uses here (an address,
# a route, a gateway or a local entry in either half), one a line: a slot N needs both
# 198.18.N.0/24 and 198.19.N.0/24, so a prefix of /16 or shorter takes every slot.
used_slots() {
        local line tok o3 len size lo
        while IFS= read -r line; do
                for tok in $line; do
                        [[ $tok =~ ^198\.(18|19)\.([0-9]+)\.[0-9]+(/([0-9]+))?$ ]] || continue
                        o3=${BASH_REMATCH[2]} len=${BASH_REMATCH[4]:-32}
                        if [ "$len" -le 16 ]; then
                                seq 0 255
                        elif [ "$len" -ge 24 ]; then
                                echo "$o3"
                        else
                                size=$((1 << (24 - len))) lo=$((o3 / size * size))
                                seq "$lo" $((lo + size - 1))
                        fi
                done
        done < <(foreign_lines)
}

# The first slot N (0-250) whose 198.18.N.0/24 and 198.19.N.0/24 nothing here uses and no other
# test internet holds; refuses (status 1) when there is none.
pick_slot() {
        local used n
        used=" $(used_slots | sort -un | tr '\n' ' ') "
        for n in $(seq 0 250); do
                case $used in *" $n "*) continue ;; esac
                [ -e "$base/$n" ] || [ -e "/run/netns/cordon-remote-$n" ] && continue
                ip link show "ctn${n}h" >/dev/null 2>&1 && continue
                echo "$n"
                return 0
        done
        echo "testnet: no slot N in 0-250 has both 198.18.N.0/24 and 198.19.N.0/24 free of other" \
                "test internets and of this host's addresses and routes (in 198.18.0.0/15 here:" \
                "$(foreign_lines | sed 's/\\.*//; s/  */ /g; s/ $//' | head -3 | paste -sd';'))" >&2
        return 1
}

add_addrs() { # add_addrs NS DEV ADDR...
        local ns=$1 dev=$2 x
        shift 2
        for x; do ip -n "$ns" addr add "$x" dev "$dev" || return 1; done
}

up() {
        local owner=$PPID
        [ "${1:-}" = --owner ] && owner=$2
        local owner_id
        owner_id=$(proc_id "$owner") || die "no process $owner to own the test internet"
        mkdir -p "$base"
        chmod 755 "$base"
        exec 9>"$base/lock"
        flock 9
        local d
        for d in "$base"/[0-9]*; do
                [ -d "$d" ] && ! owner_alive "$d" && down_dir "$d"
        done
        local n
        n=$(pick_slot) || exit 1
        d=$base/$n
        mkdir "$d" || die "cannot create $d"
        chmod 755 "$d"
        echo "$owner_id" >"$d/owner"
        exec 9>&-

        local ns=cordon-remote-$n hv=ctn${n}h rv=ctn${n}r
        local a=198.18.$n b=198.19.$n v6=fd00:198:18:$((n + 1))
        {
                ip netns add "$ns" &&
                        ip link add "$hv" type veth peer name "$rv" netns "$ns" &&
                        ip addr add "$a.1/24" dev "$hv" &&
                        ip link set "$hv" up &&
                        ip -n "$ns" link set lo up &&
                        add_addrs "$ns" "$rv" "$a".{2,3,4,5}/24 "$b".{3,4}/24 &&
                        ip -n "$ns" link set "$rv" up &&
                        ip route add "$b.0/24" via "$a.2" dev "$hv"
        } || { down_dir "$d"; die "cannot build the namespace $ns and its veth pair"; }
        local has_v6=0
        if ip -6 addr add "$v6::1/64" dev "$hv" nodad 2>/dev/null &&
                ip -n "$ns" -6 addr add "$v6::2/64" dev "$rv" nodad 2>/dev/null &&
                ip -n "$ns" -6 addr add "$v6::3/64" dev "$rv" nodad 2>/dev/null; then
                has_v6=1
        fi

        python3 "$lib/testnet.py" build "$d" || { down_dir "$d"; die "cannot build the fixtures"; }
        local addrs="$a.2 $a.3 $a.4 $a.5 $b.3 $b.4"
        [ $has_v6 = 1 ] && addrs+=" $v6::2 $v6::3"
        printf 'http=80 8080\ntcp_echo=7 25 2222\nudp_echo=7 2222\ndns=%s\naddrs=%s\n' "$a.2" "$addrs" >"$d/ports"
        local dns=(dnsmasq --keep-in-foreground --conf-file=/dev/null --no-resolv --no-hosts
                   --user=root --pid-file --bind-interfaces --listen-address="$a.2" --cache-size=0
                   --log-queries --log-facility="$d/dnsmasq.log"
                   --address=/test.example/
                   --address=/ok.test.example/"$a.3"
                   --address=/other.test.example/"$a.4"
                   --address=/zone.test.example/"$a.3"
                   --address=/git.test.example/"$a.5"
                   --address=/pypi.test.example/"$a.5"
                   --address=/npm.test.example/"$a.5"
                   --address=/far.test.example/"$b.3"
                   --address=/far2.test.example/"$b.4"
                   --host-record=mixed.test.example,"$a.3"
                   --host-record=mixed.test.example,127.0.0.1
                   --address=/rebind-private.test.example/10.1.2.3
                   --address=/rebind-cgnat.test.example/100.64.1.2
                   --address=/rebind-loop.test.example/127.0.0.1
                   --address=/rebind-zero.test.example/0.0.0.0
                   --address=/rebind-linklocal.test.example/169.254.169.254
                   --address=/rebind-mapped.test.example/::ffff:127.0.0.1
                   --address=/rebind-loop6.test.example/::1
                   --address=/host.test.example/"$a.1")
        [ $has_v6 = 1 ] && dns+=(--address=/v6.test.example/"$v6::3")
        ip netns exec "$ns" python3 "$lib/testnet.py" serve "$d" "$owner_id" -- "${dns[@]}" \
                </dev/null >"$d/server.log" 2>&1 &
        echo $! >"$d/server.pid"
        for _ in $(seq 250); do
                [ -e "$d/ready" ] && break
                kill -0 "$(cat "$d/server.pid")" 2>/dev/null || break
                sleep 0.02
        done
        if [ ! -e "$d/ready" ]; then
                local log
                log=$(cat "$d/server.log" 2>/dev/null)
                down_dir "$d"
                die "the services did not start: $log"
        fi

        cat >"$d/env.tmp" <<EOF
NET_STATE=$d
NET_DNS_LOG=$d/dnsmasq.log
NET_NS=$ns
NET_HOST_ADDR=$a.1
NET_DNS=$a.2
NET_OK_ADDR=$a.3
NET_OTHER_ADDR=$a.4
NET_PKG_ADDR=$a.5
NET_NET=$a.0/24
NET_FAR_ADDR=$b.3
NET_FAR2_ADDR=$b.4
NET_FAR_NET=$b.0/24
NET_V6=$has_v6
NET_V6_NET=$v6::/64
NET_OK_ADDR6=$v6::3
NET_HTTP_PORT=80
NET_HTTP_PORT2=8080
NET_TCP_ECHO_PORT=7
NET_TCP_ECHO_PORT2=2222
NET_SMTP_PORT=25
NET_UDP_ECHO_PORT=7
NET_UDP_ECHO_PORT2=2222
NET_OK_NAME=ok.test.example
NET_OTHER_NAME=other.test.example
NET_ZONE=zone.test.example
NET_FAR_NAME=far.test.example
NET_FAR2_NAME=far2.test.example
NET_MIXED_NAME=mixed.test.example
NET_V6_NAME=v6.test.example
NET_MISSING_NAME=missing.test.example
NET_GIT_NAME=git.test.example
NET_PYPI_NAME=pypi.test.example
NET_NPM_NAME=npm.test.example
NET_GIT_PATH=/git/repo.git
NET_PYPI_PATH=/simple/
NET_NPM_PATH=/npm/
NET_PKG=cordon-testpkg
NET_REBIND_PRIVATE=rebind-private.test.example
NET_REBIND_CGNAT=rebind-cgnat.test.example
NET_REBIND_LOOP=rebind-loop.test.example
NET_REBIND_ZERO=rebind-zero.test.example
NET_REBIND_LINKLOCAL=rebind-linklocal.test.example
NET_REBIND_MAPPED=rebind-mapped.test.example
NET_REBIND_LOOP6=rebind-loop6.test.example
NET_HOST_NAME=host.test.example
EOF
        chmod 644 "$d/env.tmp"
        mv "$d/env.tmp" "$d/env"
        chmod -R a+rX "$d"
        echo "$d/env"
}

[ "$(id -u)" -eq 0 ] || die "the test internet needs root"
case ${1:-} in
up) shift; up "$@" ;;
pick) pick_slot ;;
down)
        case ${2:-} in
        --stale)
                exec 9>"$base/lock" 2>/dev/null && flock 9
                for d in "$base"/[0-9]*; do
                        [ -d "$d" ] && ! owner_alive "$d" && down_dir "$d"
                done
                exit 0 ;;
        */env) down_dir "$(dirname "$2")" ;;
        ?*) down_dir "${2%/}" ;;
        *) die "usage: testnet.sh down STATE_FILE|--stale" ;;
        esac ;;
*) die "usage: testnet.sh up [--owner PID] | pick | down STATE_FILE|--stale" ;;
esac
