#!/usr/bin/env bash
# Attack: take every inotify instance of the user (128 by default, counted per user across all
# their processes), so that editors and file watchers outside the sandbox fail. The ns backend
# gives the sandbox's user namespace half of the user's limits (/proc/sys/user): the sandbox
# stops at EMFILE with the other half left. Control: the sandbox does reach EMFILE, and outside,
# the same user still gets an inotify instance while the sandbox holds all it could take.
# The landlock backend has no user namespace and cannot do this (cordon doctor lists the gap).
. "$(dirname "$0")/../lib/tap.sh"
ns_only "the landlock backend has no user namespace to lower the limits of"

# Inside: inotify instances until an error, the count and errno into argv[1], then hold them.
HOG='import ctypes, errno, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
fds = []
while len(fds) < 100000:
    fd = libc.inotify_init1(os.O_CLOEXEC)
    if fd < 0:
        break
    fds.append(fd)
e = ctypes.get_errno()
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d %s" % (len(fds), errno.errorcode.get(e, "OK")))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(120)'
ONE='import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(os.O_CLOEXEC)
print("OK" if fd >= 0 else errno.errorcode[ctypes.get_errno()])'

plan 4
limit=$(cat /proc/sys/user/max_inotify_instances)
ready="$T_PROJECT/hog-ready"
(cd "$T_PROJECT" && exec "$CORDON" run --quiet -- python3 -c "$HOG" "$ready" >/dev/null 2>&1) &
hog=$!
for _ in $(seq 300); do [ -e "$ready" ] && break; sleep 0.1; done
got=$(cat "$ready" 2>/dev/null)
outside=$(python3 -c "$ONE" 2>&1)
kill "$hog" 2>/dev/null
wait "$hog" 2>/dev/null

count=${got%% *}
check "the sandbox takes inotify instances until EMFILE" EMFILE "${got#* }"
if [ -n "$count" ] && [ "$count" -le $((limit / 2)) ]; then
        ok "the sandbox got at most half of the user's $limit ($count)"
else
        not_ok "the sandbox got at most half of the user's $limit" "got: ${got:-nothing}"
fi
check "outside, the same user still gets an inotify instance" OK "$outside"
check "the sandbox's limit is half of the user's" "$((limit / 2))" \
        "$(cd "$T_PROJECT" && "$CORDON" run --quiet -- cat /proc/sys/user/max_inotify_instances 2>&1)"
