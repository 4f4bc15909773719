#!/usr/bin/env bash
# Attack: open the host's POSIX shared memory by name the way shm_open() and sem_open() do
# (O_NOFOLLOW, no O_CREAT). Under the landlock backend the supervisor serves such opens of
# /dev/shm/NAME from the launch's private directory, so a name only the host has must answer
# ENOENT, never the host's object; every other path, however it spells /dev/shm (dots, double
# slashes, relative, another run's private directory), runs as made and Landlock refuses it
# (EACCES); a file outside the grants stays refused with O_NOFOLLOW too. Under the ns backend
# /dev/shm is the sandbox's own tmpfs (ENOENT everywhere there). Controls: the host opens its
# segment itself; PRIVATE_IPC=false shares it (so the refusals above are the private stand-in's
# and Landlock's, not a broken path); a project file opens with O_NOFOLLOW.
. "$(dirname "$0")/../lib/tap.sh"

name=cordon-test-attach-$$
victim=/dev/shm/$name
other=/dev/shm/cordon-shm-t$$
secret=$(mktemp /tmp/cordon-nofollow-secret.XXXXXX)
cleanup() { rm -rf "$victim" "$other" "$secret"; }
trap cleanup EXIT
echo "HOST-SHM-$$" >"$victim"
mkdir -m 0755 "$other" && echo "OTHER-RUN-$$" >"$other/x" && chmod 644 "$other/x"
echo "h0st-tmp-s3cret" >"$secret" && chmod 644 "$secret"
echo project >"$T_PROJECT/file"

# As shm_open(name, O_RDWR) and sem_open(name, 0) open an existing name.
SHM_OPEN='os.read(os.open(p, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC), 64).decode()'
ATTACH='__import__("multiprocessing.shared_memory", fromlist=["x"]).SharedMemory(name=p).size'
# The same, then off the resource tracker's list: Python before 3.13 registers an attached
# segment too, and its tracker would unlink the host's at exit.
ATTACH_KEEP='(lambda s: (__import__("multiprocessing.resource_tracker", fromlist=["x"]).unregister(s._name, "shared_memory"), s.size)[1])('"${ATTACH%.size}"')'

plan 25
check "control: the host opens its segment by name" "OK:HOST-SHM-$$" \
        "$(python3 -c "$TRY" "$SHM_OPEN" "$victim" 2>&1)"

for backend in ns landlock; do
        SANDBOX_BACKEND=$backend
        inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --backend $backend "$@" 2>&1); }
        try() { inside -- python3 -c "$TRY" "$@"; }
        b="($backend)"
        refused=$(on_backend ENOENT EACCES)

        check "$b shm_open() of the host's name: ENOENT" "ENOENT" "$(try "$SHM_OPEN" "$victim")"
        check "$b SharedMemory(name=) of the host's segment: ENOENT" "ENOENT" \
                "$(try "$ATTACH" "$name")"
        check "$b the same through /dev/shm/../shm/: $refused" "$refused" \
                "$(try "$SHM_OPEN" "/dev/shm/../shm/$name")"
        check "$b the same through /dev//shm/: $refused" "$refused" \
                "$(try "$SHM_OPEN" "/dev//shm/$name")"
        check "$b the same through /dev/shm/./: $refused" "$refused" \
                "$(try "$SHM_OPEN" "/dev/shm/./$name")"
        check "$b the same relative to /dev: $refused" "$refused" \
                "$(try 'os.chdir("/dev") or '"$SHM_OPEN" "shm/$name")"
        check "$b another run's private directory: $refused" "$refused" \
                "$(try "$SHM_OPEN" "$other/x")"
        check "$b a host /tmp file outside the grants, with O_NOFOLLOW: $refused" "$refused" \
                "$(try "$SHM_OPEN" "$secret")"
        check "control $b: a project file opens with O_NOFOLLOW" "OK:project" \
                "$(try "$SHM_OPEN" file)"
        check "control $b: PRIVATE_IPC=false shares the host's segment" "OK:HOST-SHM-$$" \
                "$(inside --set PRIVATE_IPC=false -- python3 -c "$TRY" "$SHM_OPEN" "$victim")"
        check "control $b: PRIVATE_IPC=false attaches to it by name" "OK:$(stat -c %s "$victim")" \
                "$(inside --set PRIVATE_IPC=false -- python3 -c "$TRY" "$ATTACH_KEEP" "$name")"
        check "$b the host's segment is as it was" "HOST-SHM-$$ OTHER-RUN-$$" \
                "$(cat "$victim" "$other/x" | tr '\n' ' ' | sed 's/ $//')"
done
