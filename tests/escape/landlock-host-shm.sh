#!/usr/bin/env bash
# Attack: reach another process's POSIX shared memory through /dev/shm: read or write a file the
# host made there, replace it by creating, unlinking, linking or renaming its name, link it into
# the project, or reach into another sandbox's private directory. Under the ns backend /dev/shm is
# the sandbox's own tmpfs (the host file does not exist: ENOENT). Under the landlock backend
# Landlock grants nothing there (EACCES); only creates, links and unlinks of a /dev/shm name are
# done by the supervisor, in the launch's private directory /dev/shm/cordon-shm-XXXXXX, so the
# same name is a different, private object, and the private directory is gone after the run.
# Control: the host reads the file itself, and PRIVATE_IPC=false shares it with the command.
. "$(dirname "$0")/../lib/tap.sh"

victim=/dev/shm/cordon-test-victim-$$
marker=cordon-test-marker-$$
names=(cordon-test-victim-$$ cordon-test-victim-$$.moved cordon-test-copy-$$
       cordon-test-planted-$$ cordon-test-dir-$$ "$marker")
holder=
cleanup() {
        [ -n "$holder" ] && kill "$holder" 2>/dev/null
        for n in "${names[@]}"; do rm -rf "/dev/shm/$n"; done
}
trap cleanup EXIT
echo "HOST-SHM-$$" >"$victim"
echo project >"$T_PROJECT/file"

# What of ours is in the host's /dev/shm, and the victim's content.
host_state() {
        local n out=
        for n in "${names[@]}"; do [ -e "/dev/shm/$n" ] && out+="$n "; done
        [ -e "$T_PROJECT/stolen" ] && out+="stolen "
        echo "$out$(cat "$victim" 2>&1)"
}
expected_state="cordon-test-victim-$$ HOST-SHM-$$"

# shm_open(name, O_CREAT | O_EXCL) of the victim's name, through Python's shared_memory (glibc's
# shm_open): a new, private object; then its unlink.
SHM_CREATE='import sys
from multiprocessing import shared_memory as sm
a = sm.SharedMemory(name=sys.argv[1], create=True, size=4096)
a.buf[:4] = b"EVIL"
print(bytes(a.buf[:4]).decode(), "fresh" if bytes(a.buf[4:8]) == bytes(4) else "shared")
a.close()
a.unlink()'

# Creates the marker in /dev/shm as shm_open() does (no resource tracker that would unlink it at
# exit), says so with the file "ready" and waits for "go": the private directory keeps an entry
# until the run ends.
HOLD='import os, sys, time
fd = os.open("/dev/shm/" + sys.argv[1], os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
os.write(fd, b"MARKER")
open("ready", "w").close()
for _ in range(600):
    if os.path.exists("go"):
        break
    time.sleep(0.05)
print("done")'

plan 32
check "control: the host reads its /dev/shm file" "OK:HOST-SHM-$$" \
        "$(python3 -c "$TRY" 'open(p).read()' "$victim" 2>&1)"

for backend in ns landlock; do
        SANDBOX_BACKEND=$backend
        inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --backend $backend "$@" 2>&1); }
        try() { inside -- python3 -c "$TRY" "$@"; }
        b="($backend)"

        check "$b reading the host's file: $(on_backend ENOENT EACCES)" "$(on_backend ENOENT EACCES)" \
                "$(try 'open(p).read()' "$victim")"
        check "$b opening it for writing without O_CREAT: $(on_backend ENOENT EACCES)" \
                "$(on_backend ENOENT EACCES)" "$(try 'open(p, "r+")' "$victim")"
        check "$b creating it with O_TRUNC writes a private file" "OK:4" \
                "$(try 'open(p, "w").write("evil")' "$victim")"
        check "$b shm_open(O_CREAT|O_EXCL) of its name gives a fresh private object" "EVIL fresh" \
                "$(inside -- python3 -c "$SHM_CREATE" "cordon-test-victim-$$")"
        check "$b unlinking it: ENOENT (not there)" "ENOENT" "$(try 'os.unlink(p)' "$victim")"
        check "$b linking it to a new /dev/shm name: ENOENT (not there)" "ENOENT" \
                "$(try 'os.link(p, "/dev/shm/cordon-test-copy-'$$'")' "$victim")"
        check "$b hard-linking it into the project: $(on_backend ENOENT EXDEV)" \
                "$(on_backend ENOENT EXDEV)" "$(try 'os.link(p, "stolen")' "$victim")"
        check "$b hard-linking a project file into /dev/shm: EXDEV" "EXDEV" \
                "$(try 'os.link("file", p)' "/dev/shm/cordon-test-planted-$$")"
        check "$b renaming it: $(on_backend ENOENT EACCES)" "$(on_backend ENOENT EACCES)" \
                "$(try 'os.rename(p, p + ".moved")' "$victim")"
        check "$b a directory in /dev/shm: $(on_backend 'private (OK)' 'not made (EACCES)')" \
                "$(on_backend OK:None EACCES)" "$(try 'os.mkdir(p)' "/dev/shm/cordon-test-dir-$$")"
        check "$b the host's /dev/shm and the project are as they were" "$expected_state" \
                "$(host_state)"
        check "control $b: PRIVATE_IPC=false shares the host's file" "OK:HOST-SHM-$$" \
                "$(inside --set PRIVATE_IPC=false -- python3 -c "$TRY" 'open(p).read()' "$victim")"
        # PRIVATE_IPC=false shares the host's /dev/shm both ways: a name created inside is the
        # host's (no private stand-in splitting what the setting shares).
        rm -f "/dev/shm/cordon-test-copy-$$"
        inside --set PRIVATE_IPC=false -- python3 -c "$TRY" \
                'os.write(os.open(p, os.O_CREAT | os.O_RDWR, 0o600), b"SHARED")' \
                "/dev/shm/cordon-test-copy-$$" >/dev/null
        check "$b PRIVATE_IPC=false: a name created inside is on the host" "SHARED" \
                "$(cat "/dev/shm/cordon-test-copy-$$" 2>&1)"
        rm -f "/dev/shm/cordon-test-copy-$$"

        # A run that keeps a file in its private directory while a second run attacks it.
        rm -f "$T_PROJECT/ready" "$T_PROJECT/go"
        inside -- python3 -c "$HOLD" "$marker" >"$T_TMP/hold.out" &
        holder=$!
        for _ in $(seq 300); do [ -e "$T_PROJECT/ready" ] && break; sleep 0.1; done
        dirs=()
        for d in /dev/shm/cordon-shm-*; do [ -e "$d/$marker" ] && dirs+=("$d"); done
        if [ $backend = ns ]; then
                check "$b the file made in /dev/shm is nowhere on the host" \
                        "ready: absent" "$([ -e "$T_PROJECT/ready" ] && echo ready): $(
                                [ -e "/dev/shm/$marker" ] || [ ${#dirs[@]} -gt 0 ] && echo present || echo absent)"
        else
                dir=${dirs[0]:-/dev/shm/cordon-shm-none}
                check "$b the file made in /dev/shm is in one private directory, mode 0700" \
                        "ready 1 700 MARKER" "$([ -e "$T_PROJECT/ready" ] && echo ready) ${#dirs[@]} $(
                                stat -c %a "$dir" 2>&1) $(cat "$dir/$marker" 2>&1)"
                check "$b another run reading it there: EACCES" "EACCES" \
                        "$(try 'open(p).read()' "$dir/$marker")"
                check "$b another run creating a file there: EACCES" "EACCES" \
                        "$(try 'open(p, "w")' "$dir/evil")"
        fi
        touch "$T_PROJECT/go"
        wait "$holder"
        holder=
        if [ $backend = landlock ]; then
                check "$b after the run its private directory is gone" "done absent" \
                        "$(cat "$T_TMP/hold.out") $([ -e "$dir" ] && echo present || echo absent)"
        fi
done
