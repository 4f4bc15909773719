#!/usr/bin/env bash
# Must work: a caller that starts cordon with standard input, output and error closed
# (`cordon run -- CMD 0<&- 1>&- 2>&-`, as some daemons and cron setups do). cordon puts /dev/null
# there before it opens anything, so no file it opens is taken for its stdio, and the command gets
# /dev/null for each of them rather than whatever it opens first. One closed and the others
# open: only that one is /dev/null. Under proxied mode too (more descriptors: the proxy's socket,
# under the landlock backend the seccomp listener). The library's own guard, for callers that
# do not do this, has a unit test (test-sandbox: given_stdio_caller_without_stdio_*).
. "$(dirname "$0")/../lib/tap.sh"

# FDS: the command's 0, 1 and 2 as their link targets, written to the file argv[1].
FDS='import os, sys
with open(sys.argv[1], "w") as f:
    for n in range(3):
        try:
            f.write("%d:%s\n" % (n, os.readlink("/proc/self/fd/%d" % n)))
        except OSError:
            f.write("%d:closed\n" % n)'
# closed STDIO-REDIRECTIONS OPTION...: runs FDS under cordon with the redirections; $rc, and
# the command's fds in $fds.
closed() {
        local redir=$1
        shift
        rm -f "$T_PROJECT/fds"
        (cd "$T_PROJECT" && eval 'timeout 60 "$CORDON" run --quiet "$@" -- python3 -c "$FDS" "$T_PROJECT/fds" '"$redir")
        rc=$?
        fds=$(tr '\n' ' ' <"$T_PROJECT/fds" 2>/dev/null)
}

plan 8
(cd "$T_PROJECT" && timeout 60 "$CORDON" run --quiet --net isolated -- true 0<&- 1>&- 2>&-)
check "cordon run -- true 0<&- 1>&- 2>&-: 0" "0" "$?"
closed "0<&- 1>&- 2>&-" --net isolated
check "all three closed: the run succeeds" "0" "$rc"
check "all three closed: the command gets /dev/null for each" \
        "0:/dev/null 1:/dev/null 2:/dev/null " "$fds"
closed "1>&-" --net isolated
check "stdout closed: only it is /dev/null" "0" "$rc"
case $fds in
"0:/dev/null 1:/dev/null 2:"*) [ "${fds#*2:}" != "/dev/null " ] && ok "stdout closed: stderr is still the caller's ($fds)" ||
        not_ok "stdout closed: stderr is still the caller's" "$fds" ;;
*) not_ok "stdout closed: stderr is still the caller's" "$fds" ;;
esac
out=$(cd "$T_PROJECT" && timeout 60 "$CORDON" run --quiet --net isolated -- sh -c 'echo to-stderr >&2' 0<&- 2>&1 1>&-)
check "stdin and stdout closed: what the command writes to stderr arrives" "to-stderr" "$out"
closed "0<&- 1>&- 2>&-" --net proxied
check "proxied, all three closed: the run succeeds" "0" "$rc"
check "proxied, all three closed: /dev/null for each" "0:/dev/null 1:/dev/null 2:/dev/null " "$fds"
