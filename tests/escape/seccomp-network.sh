#!/usr/bin/env bash
# Attack: use sockets although the capability policy's side_effect_level is below `network`
# (process_exec): socket, socketpair, connect, accept, accept4, bind, listen, sendto, sendmsg,
# recvfrom, recvmsg, and the vectored sendmmsg/recvmmsg. The seccomp filter answers EPERM.
# Control: the same policy at side_effect_level `network`, where the kernel answers (AF_UNIX
# sockets work, fd -1 gives EBADF).
# The landlock backend has no network namespace: with the network isolated it refuses socket()
# for every family (deny_socket_create) at any level, while socketpair() keeps working.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sysprobe.sh"

policy() { # policy LEVEL: a capability policy file rooted at the project
        printf '{"workspace_roots": ["%s"], "side_effect_level": "%s"}\n' "$T_PROJECT" "$1" \
                >"$T_TMP/$1.json"
        echo "$T_TMP/$1.json"
}
below=$(policy process_exec)
at=$(policy network)

# name: the control's answer at side_effect_level network
calls=(socket:OK socketpair:OK connect:EBADF accept:EBADF accept4:EBADF bind:EBADF listen:EBADF
        sendto:EBADF sendmsg:EBADF recvfrom:EBADF recvmsg:EBADF sendmmsg:EBADF recvmmsg:EBADF)

# notes_after DESCRIPTION N: the last sysprobe_in printed N lines about a refused unix socket.
notes_after() {
        if [ -n "$set_skip" ]; then
                skip "$set_skip" "$1$set_label"
                return
        fi
        check "$1$set_label" "$2" "$(cat "$T_TMP/unix-notes" 2>/dev/null)"
}

checks() {
        local c name control
        for c in "${calls[@]}"; do
                name=${c%%:*} control=${c#*:}
                if [ "$set_name" = landlock ] && [ "$name" = socket ]; then
                        control=EPERM # deny_socket_create: no network namespace to isolate
                fi
                expect "$name under side_effect_level process_exec: EPERM" EPERM \
                        --policy "$below" -- "$name"
                expect "control: $name under side_effect_level network: $control" "$control" \
                        --policy "$at" -- "$name"
        done
        # Without a policy: the network namespace isolates (ns), or socket() is refused (landlock),
        # with one line naming the gap (sysprobe's socket is AF_UNIX).
        if [ "$set_name" = landlock ]; then
                expect "socket without a policy: EPERM (no network namespace)" EPERM -- socket
                notes_after "socket without a policy: one line naming the gap" 1
        else
                expect "socket without a policy: OK (the network namespace isolates)" OK -- socket
                notes_after "socket without a policy: no line about unix sockets" 0
        fi
        expect "socketpair without a policy: OK" OK -- socketpair
        expect "connect without a policy: EBADF (not filtered)" EBADF -- connect
}
seccomp_main $((${#calls[@]} * 2 + 4)) checks
