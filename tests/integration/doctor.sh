#!/usr/bin/env bash
# `cordon doctor`: the backend in use first and whole (each line cross-checked against an
# independent control: unshare, the Landlock syscall from Python, /proc/self/status, stat -f,
# command -v, mountinfo and test -w for the limits, and the `cordon: limits` banner of `cordon run`
# for the same user), the other backends one line each, then each problem with its fix; nothing
# about what the settings do not ask for (limits, cgroups, modules, held variables). --json
# carries the same facts; misuse exits 2. The landlock backend's items (what works there on this
# host) agree with the Landlock ABI, the kernel's seccomp user notification and what the commands
# really get under --backend landlock. Filtered mode out of reach of the user (a /dev/net/tun only
# root may open) is a problem whose fix is the chmod.
. "$(dirname "$0")/../lib/tap.sh"

# The settings: none (the suite's SANDBOX_BACKEND aside) unless a test names a file.
unset CORDON_CONF SANDBOX_CONF
out=$("$CORDON" doctor 2>"$T_TMP/err"); rc=$?
json=$("$CORDON" doctor --json 2>"$T_TMP/json-err"); json_rc=$?
out_ns=$("$CORDON" doctor --backend ns 2>/dev/null)
out_ll=$("$CORDON" doctor --backend landlock 2>/dev/null)
# line LABEL [TEXT]: "LABEL: VALUE" of the in-use section of TEXT (default: the ns backend's).
line() { printf '%s\n' "${2-$out_ns}" | sed -n "s/^  \($1\): /\1: /p" | head -1; }

# Controls, computed without cordon.
if unshare -Ur true 2>/dev/null; then userns=yes; else userns=no; fi
landlock=$(python3 -c 'import ctypes
libc = ctypes.CDLL(None, use_errno=True)
# landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION); 444 on every architecture
abi = libc.syscall(444, None, 0, 1)
print("ABI %d" % abi if abi > 0 else "unavailable")')
if grep -q '^Seccomp_filters:' /proc/self/status; then seccomp=yes; else seccomp=no; fi
pasta=$(command -v pasta || echo "not found in PATH")
cgroup_expect() {
        local mount path dir
        if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
                printf 'v2'; mount=/sys/fs/cgroup
        elif [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
                printf 'v2 hybrid'; mount=/sys/fs/cgroup/unified
        else
                printf 'v1 only'; return
        fi
        path=$(sed -n 's/^0:://p' /proc/self/cgroup)
        dir=$mount${path%/}
        if [ -w "$dir" ] && [ -w "$dir/cgroup.procs" ] && [ -w "$dir/cgroup.subtree_control" ]; then
                printf ', delegated'
        else
                printf ', not delegated'
        fi
}

# own_cgroup CONTROLLER: "MOUNT DIR", the mount point of that hierarchy (empty CONTROLLER: the
# v2 one) and the caller's cgroup directory in it, from mountinfo and /proc/self/cgroup; nothing
# when either lacks it.
own_cgroup() {
        local ctl=$1 mnt root path
        read -r mnt root < <(awk -v c="$ctl" '{
                for (i = 7; $i != "-"; i++) ;
                if (c == "" ? $(i + 1) == "cgroup2" : $(i + 1) == "cgroup" && ("," $(i + 3) ",") ~ ("," c ",")) {
                        print $5, $4; exit
                }
        }' /proc/self/mountinfo)
        [ -n "$mnt" ] || return 0
        if [ -z "$ctl" ]; then
                path=$(sed -n 's/^0:://p' /proc/self/cgroup)
        else
                path=$(awk -F: -v c="$ctl" '$1 != "0" && ("," $2 ",") ~ ("," c ",") { print $3; exit }' /proc/self/cgroup)
        fi
        [ -n "$path" ] || return 0
        [ "$root" = / ] || path=${path#"$root"}
        echo "$mnt $mnt${path%/}"
}
# limit_expect KIND CONTROLLER: the mechanism the host facts call for. A writable own v2 cgroup
# offering the controller, already enabled for children or enableable (no process inside, or the
# root cgroup); else a writable own v1 cgroup; else the per-process fallback, and nothing for
# pids as uid 0 (the kernel does not apply RLIMIT_NPROC to root).
limit_expect() {
        local kind=$1 ctl=$2 mnt dir
        read -r mnt dir < <(own_cgroup "")
        if [ -n "$dir" ] && [ -w "$dir" ] && grep -qw "$ctl" "$dir/cgroup.controllers" 2>/dev/null &&
                { grep -qw "$ctl" "$dir/cgroup.subtree_control" || [ "$dir" = "$mnt" ] ||
                        [ ! -s "$dir/cgroup.procs" ]; }; then
                echo cgroup2; return
        fi
        read -r mnt dir < <(own_cgroup "$ctl")
        if [ -n "$dir" ] && [ -w "$dir" ]; then echo cgroup1; return; fi
        case $kind in
        memory) echo rlimit ;;
        cpus) echo affinity ;;
        pids) if [ "$(id -ru)" = 0 ]; then echo unavailable; else echo rlimit; fi ;;
        esac
}
# banner_mech KIND VALUE: what `cordon run --KIND VALUE -- true` says it uses in its banner;
# "unavailable" when it refuses because no mechanism can enforce the limit.
banner_mech() {
        local o rc m
        o=$(cd "$T_PROJECT" && "$CORDON" run "--$1" "$2" -- true 2>&1); rc=$?
        m=$(printf '%s\n' "$o" | sed -n "s/^cordon: limits $1=\([a-z0-9]*\)\$/\1/p")
        if [ "$rc" = 0 ] && [ -n "$m" ]; then
                echo "$m"
        elif [ "$rc" = 125 ] && printf '%s\n' "$o" | grep -q "the $1 limit cannot be enforced"; then
                echo unavailable
        else
                echo "status $rc: $(printf '%s' "$o" | paste -sd' ')"
        fi
}

plan 34

if [ "$userns" = yes ]; then
        check "exit status 0: user namespaces work here" "0" "$rc"
else
        skip "user namespaces are unavailable to $(id -un) (unshare -Ur failed)" \
                "exit status 0: user namespaces work here"
fi

# The structure: the backend in use (the suite's SANDBOX_BACKEND, else what auto picks) and its
# lines, the other backend on one line, then the problems.
if [ "$userns" = yes ]; then auto=ns; elif [ "$landlock" != unavailable ]; then auto=landlock; else auto=none; fi
in_use=${SANDBOX_BACKEND:-$auto}
other=ns; [ "$in_use" = ns ] && other=landlock
shape=$(printf '%s\n' "$out" | sed 's/^\(  [a-z][a-z ]*\): .*/\1/; s/^\(problem\): .*/\1/; s/^\(backend: [a-z]*\) .*/\1/' |
        sed "s/^  $other: .*/  $other/" | uniq | paste -sd,)
case $in_use in
ns) want_shape="backend: ns,  user namespaces,$(line apparmor >/dev/null && [ -n "$(line apparmor)" ] && echo '  apparmor,')  landlock,  seccomp,  network,  network modes here,  pasta,other backends:,  landlock" ;;
*) want_shape="backend: landlock,  landlock,  seccomp,  network,  network modes here,  works,  gap,other backends:,  ns" ;;
esac
case $shape in
"$want_shape,problem" | "$want_shape,problems: none") ok "text: the backend in use ($in_use) whole, the other on one line, then the problems" ;;
*) not_ok "text: the backend in use ($in_use) whole, the other on one line, then the problems" "want: $want_shape" "got: $shape" ;;
esac
check "text: with no settings, nothing about limits, cgroups, modules or held variables" "" \
        "$(printf '%s\n' "$out" "$out_ns" "$out_ll" | grep -E '^  (limits|cgroup|modules|accepted)' | head -3)"
check "text: each problem is one line, with its fix" "" \
        "$(printf '%s\n' "$out" "$out_ns" "$out_ll" | grep '^problem: ' | grep -v '; fix: .' | head -3)"

ul=$(line "user namespaces")
case "${ul#*: }" in
yes) got=yes ;;
"no ("*")") got="no, with a reason" ;;
*) got="${ul#*: }" ;;
esac
check "user namespaces: agrees with unshare -Ur" \
        "$([ "$userns" = yes ] && echo yes || echo "no, with a reason")" "$got"

ll=$(line landlock)
check "landlock: agrees with landlock_create_ruleset from Python" "$landlock" "$(printf '%s' "${ll#landlock: }" | sed 's/ (.*//; s/,.*//')"

sl=$(line seccomp)
check "seccomp: agrees with /proc/self/status" "$seccomp" "$(printf '%s' "${sl#seccomp: }" | sed 's/ (.*//')"

# Limits and their cgroup only when set: a file of the user's that sets all three.
printf 'MEMORY_LIMIT=64M\nPIDS_LIMIT=4096\nCPU_LIMIT=1\n' >"$T_TMP/limits.conf"
out_lim=$(CORDON_CONF=$T_TMP/limits.conf "$CORDON" doctor --backend ns 2>/dev/null)
cl=$(line cgroup "$out_lim")
check "cgroup: layout and delegation agree with stat -f and test -w" "$(cgroup_expect)" \
        "$(printf '%s' "${cl#cgroup: }" | sed 's/ (.*//; s/;.*//')"

lim=$(line limits "$out_lim")
lim_value=$(printf '%s' "${lim#limits: }" | sed 's/ (.*//')
want="memory=$(limit_expect memory memory) pids=$(limit_expect pids pids) cpus=$(limit_expect cpus cpu)"
check "limits: as uid $(id -ru), $want as mountinfo, /proc/self/cgroup and test -w call for" \
        "$want" "$lim_value"
banner="memory=$(banner_mech memory 64M) pids=$(banner_mech pids 4096) cpus=$(banner_mech cpus 1)"
check "limits: the same as the banner of cordon run --memory/--pids/--cpus" "$banner" "$lim_value"
# Each fallback names its weakness; an unenforceable limit says why and is a problem.
missing=""
case $lim_value in *memory=rlimit*)
        case $lim in *"RLIMIT_AS/RLIMIT_DATA per process"*) ;; *) missing="$missing memory" ;; esac ;;
esac
case $lim_value in *pids=rlimit*)
        case $lim in *"RLIMIT_NPROC counts every process of uid $(id -ru),"*) ;; *) missing="$missing pids" ;; esac ;;
esac
case $lim_value in *=unavailable*)
        case $lim in *"limit cannot be enforced: "*) ;; *) missing="$missing unavailable" ;; esac
        printf '%s\n' "$out_lim" | grep -q '^problem: PIDS_LIMIT=4096 (.*) cannot be enforced: .*; fix: CGROUP_PATH' ||
                missing="$missing problem" ;;
esac
check "limits: a caveat for each fallback, a reason and a problem for each unavailable limit" "" "$missing${missing:+: $lim}"
out_one=$(printf 'PIDS_LIMIT=4096\n' >"$T_TMP/pids.conf"; CORDON_CONF=$T_TMP/pids.conf "$CORDON" doctor --backend ns 2>/dev/null)
check "limits: only the limits set are named" "limits: pids=$(limit_expect pids pids)" \
        "$(line limits "$out_one" | sed 's/ (.*//')"

check "pasta: agrees with command -v" "pasta: $pasta" "$(line pasta)"
# filtered needs pasta in the system directories and /dev/net/tun read-write for this user, and
# the tun device there (not another one bound over it, as containers do with /dev/null).
want_net="network modes here: open, proxied, isolated"
tun_ok=no
if [ -x /usr/bin/pasta ] || [ -x /usr/local/bin/pasta ] || [ -x /usr/sbin/pasta ] || [ -x /bin/pasta ]; then
        if python3 -c 'import os, stat, sys
fd = os.open("/dev/net/tun", os.O_RDWR)
st = os.fstat(fd)
sys.exit(not (stat.S_ISCHR(st.st_mode) and (os.major(st.st_rdev), os.minor(st.st_rdev)) == (10, 200)))' 2>/dev/null; then
                want_net="network modes here: open, filtered, proxied, isolated"
                tun_ok=yes
        fi
fi
check "network: filtered listed exactly when pasta and /dev/net/tun are usable" "$want_net" "$(line "network modes here")"
if [ "$tun_ok" = yes ]; then
        check "network: the default mode, filtered, is what runs" "network: filtered (NETWORK_FILTER_MODE=filtered (built-in default))" "$(line network)"
else
        case $(line network) in
        "network: proxied (NETWORK_FILTER_MODE=filtered (built-in default) cannot be delivered here; NETWORK_FILTER_FALLBACK=stricter (built-in default))")
                ok "network: filtered cannot be delivered, the fallback gives proxied" ;;
        *) not_ok "network: filtered cannot be delivered, the fallback gives proxied" "$(line network)" ;;
        esac
fi

# A /dev/net/tun only root may open (as on this machine without udev): filtered is out of reach
# for a user, and doctor says so with the fix. As root: a private mount namespace where a 0600
# tun node is bound over /dev/net/tun, doctor run as nobody; otherwise this user as it is.
tun_problem() { printf '%s\n' "$1" | grep '^problem: network mode filtered cannot be delivered'; }
want_fix="pasta cannot open /dev/net/tun: Permission denied; cordon run uses proxied instead (NETWORK_FILTER_FALLBACK); fix: chmod 0666 /dev/net/tun"
if [ "$(id -u)" = 0 ] && [ -x /usr/bin/pasta ] && mknod -m 0600 "$T_TMP/tun" c 10 200 2>/dev/null; then
        got=$(unshare -m --propagation private sh -c 'mount --bind "$1" /dev/net/tun &&
                exec setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/ "$2" doctor --backend ns' - \
                "$T_TMP/tun" "$CORDON" 2>&1)
        case $(tun_problem "$got") in
        "problem: network mode filtered cannot be delivered for nobody here: $want_fix"*) ok "tun 0600, as nobody: the problem and its fix (chmod 0666 /dev/net/tun)" ;;
        *) not_ok "tun 0600, as nobody: the problem and its fix (chmod 0666 /dev/net/tun)" "$got" ;;
        esac
elif [ "$tun_ok" = no ] && [ -e /dev/net/tun ] && [ -n "$pasta" ] && [ ! -w /dev/net/tun ]; then
        case $(tun_problem "$out_ns") in
        "problem: network mode filtered cannot be delivered for $(id -un) here: $want_fix"*) ok "tun not usable by $(id -un): the problem and its fix (chmod 0666 /dev/net/tun)" ;;
        *) not_ok "tun not usable by $(id -un): the problem and its fix (chmod 0666 /dev/net/tun)" "$out_ns" ;;
        esac
else
        check "tun usable by $(id -un): no network problem under the ns backend" "" "$(tun_problem "$out_ns")"
fi

check "landlock: the features the ABI offers" "$(features=""
if [ "$landlock" != unavailable ]; then
        abi=${landlock#ABI }; i=0
        for f in filesystem refer truncate tcp ioctl_dev scope; do
                i=$((i + 1)); [ "$abi" -ge "$i" ] && features="$features $f"
        done
        echo "landlock: $landlock,$features"
else
        echo "landlock: unavailable"
fi)" "$(line landlock | sed 's/ (.*//')"
check "backend: the one in use is what auto picks, or the suite's SANDBOX_BACKEND" "$in_use" \
        "$(printf '%s\n' "$out" | sed -n '1s/^backend: \([a-z]*\).*/\1/p; 1s/^backend: none can run here.*/none/p')"
gaps=$(printf '%s\n' "$out_ll" | grep -c '^  gap: ')
if [ "$gaps" -ge 4 ] && printf '%s\n' "$out_ll" | grep -q '^  gap: .*EACCES instead of being hidden'; then
        ok "landlock backend: its gaps are listed ($gaps lines)"
else
        not_ok "landlock backend: its gaps are listed" "$out_ll"
fi
case $(printf '%s\n' "$out_ns" | grep '^  landlock: usable') in
"  landlock: usable, without namespaces: "*" of 14 items work here, $gaps gaps (cordon doctor --backend landlock lists them)")
        ok "other backends: landlock on one line, counting its $gaps gaps" ;;
*) [ "$landlock" = unavailable ] && ok "other backends: landlock unavailable # SKIP no Landlock" ||
        not_ok "other backends: landlock on one line, counting its $gaps gaps" "$out_ns" ;;
esac

keys=$(printf '%s' "$json" | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(",".join(k for k in ("user_namespaces", "landlock", "seccomp", "cgroup", "limits", "pasta",
                           "network", "ns_backend_usable", "in_use", "problems") if k in d))' 2>&1 | tail -1)
check "--json: parses, with every key" \
        "user_namespaces,landlock,seccomp,cgroup,limits,pasta,network,ns_backend_usable,in_use,problems" "$keys"

from_json=$(printf '%s' "$json" | python3 -c 'import json, sys
d = json.load(sys.stdin)
yn = lambda b: "yes" if b else "no"
print(yn(d["user_namespaces"]["usable"]),
      "ABI %d" % d["landlock"]["abi"] if d["landlock"]["available"] else "unavailable",
      yn(d["seccomp"]["available"]), d["pasta"]["path"] or "not found in PATH",
      d["in_use"]["backend"], sep="|")' 2>&1 | tail -1)
from_text="$(printf '%s' "${ul#*: }" | sed 's/ (.*//')|$(printf '%s' "${ll#landlock: }" | sed 's/ (.*//; s/,.*//')"
from_text="$from_text|$(printf '%s' "${sl#seccomp: }" | sed 's/ (.*//')|$(line pasta | sed 's/^pasta: //')|$in_use"
check "--json: the same facts as the text" "$from_text" "$from_json"

json_problems=$(printf '%s' "$json" | python3 -c 'import json, sys
for p in json.load(sys.stdin)["problems"]:
    print("problem: %s; fix: %s" % (p["what"], p["fix"]))' 2>&1)
check "--json: the same problems as the text" "$(printf '%s\n' "$out" | grep '^problem: ')" "$json_problems"

check "--json: the same exit status as the text" "$rc" "$json_rc"

bogus_out=$("$CORDON" doctor --bogus 2>"$T_TMP/bogus-err"); bogus_rc=$?
check "--bogus: exit status 2" "2" "$bogus_rc"
if [ -z "$bogus_out" ] && [ "$(wc -l <"$T_TMP/bogus-err")" = 1 ] &&
        grep -q -- "--bogus.*see 'cordon doctor --help'" "$T_TMP/bogus-err"; then
        ok "--bogus: one line on stderr names the option and the help, nothing on stdout"
else
        not_ok "--bogus: one line on stderr names the option and the help, nothing on stdout" \
                "stdout: $bogus_out" "stderr: $(head -2 "$T_TMP/bogus-err" | paste -sd' ')"
fi
"$CORDON" doctor --backend bogus >/dev/null 2>"$T_TMP/backend-err"; backend_rc=$?
check "--backend bogus: a usage error naming --backend" "2:1" \
        "$backend_rc:$(grep -c -- "--backend 'bogus'" "$T_TMP/backend-err")"

help_out=$("$CORDON" doctor --help 2>/dev/null); help_rc=$?
if [ "$help_rc" = 0 ] && printf '%s\n' "$help_out" | grep -q -- "--json" &&
        printf '%s\n' "$help_out" | grep -q -- "--backend"; then
        ok "--help: exit status 0, lists --json and --backend"
else
        not_ok "--help: exit status 0, lists --json and --backend" "status $help_rc" "$help_out"
fi

# A configuration that does not load: cordon run would refuse, and doctor says so with the file.
printf 'NETWORK_FILTER_MODE=bogus\n' >"$T_TMP/bad.conf"
bad=$(CORDON_CONF=$T_TMP/bad.conf "$CORDON" doctor 2>/dev/null); bad_rc=$?
case $(printf '%s\n' "$bad" | grep '^problem: the configuration') in
"problem: the configuration cannot be loaded: $T_TMP/bad.conf:1: NETWORK_FILTER_MODE 'bogus'"*"; fix: "*)
        check "a configuration that does not load: a problem naming file and line, exit status 1" 1 "$bad_rc" ;;
*) not_ok "a configuration that does not load: a problem naming file and line, exit status 1" "$bad" ;;
esac

# The landlock backend's items. Controls: the ABI from Python (above), the kernel's seccomp user
# notification (the action, pidfd_getfd and Linux 5.14 for SECCOMP_ADDFD_FLAG_SEND), and what a
# command really gets under --backend landlock for the items a command can try.
ll_items=tmpdir,tmp,shm,pty,scope,tcp,proxied,filtered,proc,passwd,home_seeded,protected,home_scratch,unix
notify_kernel=$(python3 -c 'import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
action = ctypes.c_uint32(0x7fc00000)  # SECCOMP_RET_USER_NOTIF
ok = libc.syscall(317, 2, 0, ctypes.byref(action)) == 0  # seccomp(SECCOMP_GET_ACTION_AVAIL)
ok = ok and libc.syscall(438, -1, 0, 0) < 0 and ctypes.get_errno() == errno.EBADF  # pidfd_getfd
major, minor = (int(x) for x in os.uname().release.split(".")[:2])
print("yes" if ok and (major, minor) >= (5, 14) else "no")')
LL_TRY='import _posixshmem, os, subprocess, sys
def attempt(f):
    try:
        f()
        return "yes"
    except OSError:
        return "no"
def shm():
    name = "/cordon-doctor-%d" % os.getpid()
    os.close(_posixshmem.shm_open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600))
    _posixshmem.shm_unlink(name)
def mk(d):
    os.rmdir(subprocess.run(["mktemp", "-d", d + "/cordon-doctor.XXXXXX"], check=True,
                            capture_output=True, text=True).stdout.strip())
def tmp_ok(d):
    try:
        mk(d)
        return "yes"
    except subprocess.CalledProcessError:
        return "no"
def home():
    p = os.path.join(os.environ["HOME"], "cordon-doctor-%d" % os.getpid())
    os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    os.unlink(p)
print("tmpdir=%s tmp=%s shm=%s pty=%s" % (tmp_ok(os.environ["TMPDIR"]), tmp_ok("/tmp"),
      attempt(shm), attempt(lambda: [os.close(fd) for fd in os.openpty()])))
print("home_scratch=%s" % attempt(home))'
ll_json=$(printf '%s' "$json" | python3 -c 'import json, sys
d = json.load(sys.stdin)["landlock_backend"]
print(",".join(f["name"] for f in d["features"]))
print(" ".join("%s=%s" % (f["name"], "yes" if f["works"] else "no") for f in d["features"]))' 2>&1)
check "landlock backend: --json lists every item, in order" "$ll_items" "$(printf '%s\n' "$ll_json" | head -1)"

if [ "$landlock" != unavailable ]; then
        abi=${landlock#ABI }
        tried=$(cd "$T_PROJECT" && "$CORDON" run --quiet --backend landlock --net isolated -- \
                python3 -c "$LL_TRY" 2>"$T_TMP/ll-try-err")
        yn() { if "$@"; then echo yes; else echo no; fi; }
        # the items in the order of the list: the home's line last
        home_tried=$(printf '%s\n' "$tried" | sed -n 2p) tried=$(printf '%s\n' "$tried" | sed -n 1p)
        want="$tried scope=$(yn [ "$abi" -ge 6 ]) tcp=$(yn [ "$abi" -ge 4 ])"
        # proxied also needs the notifications, which the private /dev/shm tried above needs.
        case $tried in *shm=yes*) notify=yes ;; *) notify=no ;; esac
        want="$want proxied=$(yn [ "$abi" -ge 4 -a "$seccomp" = yes -a "$notify" = yes ]) filtered=no proc=no passwd=no"
        want="$want home_seeded=no protected=no $home_tried"
        # unix: ABI 9, or the notifications (a command under open tries both halves below).
        want="$want unix=$(yn [ "$abi" -ge 9 -o \( "$seccomp" = yes -a "$notify" = yes \) ])"
else
        want=$(printf '%s' "$ll_items" | tr , '\n' | sed 's/$/=no/' | paste -sd' ')
fi
check "landlock backend: each item works exactly as the ABI ($landlock) and a command under it find" \
        "$want" "$(printf '%s\n' "$ll_json" | sed -n 2p)"

# The refused create under /tmp: with the notifications it comes with one warning naming the gap,
# and doctor's note says so; without them it is a bare EACCES, and the note does not promise one.
if [ "$landlock" != unavailable ]; then
        warned=no
        grep -q "no private /tmp" "$T_TMP/ll-try-err" && warned=yes
        promised=$(printf '%s' "$json" | python3 -c 'import json, sys
f = [f for f in json.load(sys.stdin)["landlock_backend"]["features"] if f["name"] == "tmp"][0]
print("yes" if "a note naming this gap" in f["note"] else "no")')
        check "landlock backend: a create under /tmp is refused with a warning exactly when doctor says so" \
                "$promised" "$warned"
else
        skip "Landlock is unavailable" "landlock backend: a create under /tmp is refused with a warning exactly when doctor says so"
fi

# shm and pty rest on seccomp user notification: working, the kernel has it; not working, the
# note names what is missing.
notify_notes=$(printf '%s' "$json" | python3 -c 'import json, sys
for f in json.load(sys.stdin)["landlock_backend"]["features"]:
    if f["name"] in ("shm", "pty"):
        print("%s=%s" % (f["name"], "works" if f["works"] else
              "needs-notify" if "needs Linux 5.14 seccomp user notification" in f["note"] else f["note"]))')
bad=""
for n in $notify_notes; do
        case $n:$notify_kernel in *=works:yes | *=needs-notify:*) ;; *) bad="$bad $n" ;; esac
done
if [ "$landlock" = unavailable ] || [ -z "$bad" ]; then
        ok "landlock backend: shm and pty work only with the kernel's seccomp user notification ($notify_kernel), else say so"
else
        not_ok "landlock backend: shm and pty work only with the kernel's seccomp user notification ($notify_kernel), else say so" "$bad"
fi

# The text says the same: a "works" line per working item, a gap line per other one, and the
# gap lines of --json are those of the text.
text_want=$(printf '%s' "$json" | python3 -c 'import json, sys
d = json.load(sys.stdin)["landlock_backend"]
for f in d["features"]:
    if f["works"]:
        print("  works: %s (%s)" % (f["what"], f["note"]))
for g in d["gaps"]:
    print("  gap: " + g)')
check "landlock backend: the text has the same works and gap lines as --json" "$text_want" \
        "$(printf '%s\n' "$out_ll" | grep '^  works: \|^  gap: ')"
