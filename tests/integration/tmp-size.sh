#!/usr/bin/env bash
# --tmp-size sizes the private /tmp and the tmpfs home of the ns backend: a write beyond the
# size fails with ENOSPC, each of the two has the size on its own, and the same writes without
# the flag succeed (the controls). The landlock backend has no tmpfs to size and refuses the
# flag rather than ignore it; so does a sandbox with neither tmpfs. It sizes /dev/shm too, and
# without it /tmp, the home and /dev/shm share a quarter of RAM instead of half of it each.
# When --memory falls back to rlimits, which do not count tmpfs or memfd pages, the banner says.
. "$(dirname "$0")/../lib/tap.sh"

run() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@"); }
# FILL: writes argv[2] KiB to the file argv[1], each short write continued, and prints OK or the
# errno name of the write that failed.
FILL='import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
left = int(sys.argv[2]) << 10
try:
    while left:
        left -= os.write(fd, b"x" * min(left, 65536))
    print("OK")
except OSError as e:
    print(errno.errorcode[e.errno])'
SIZE='import os, sys; s = os.statvfs(sys.argv[1]); print(s.f_blocks * s.f_frsize)'
# the size each of /tmp, the tmpfs home and /dev/shm gets by default: a third of a quarter of
# RAM, in whole pages.
ram=$(( $(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) * 1024 ))
share=$(( ram / 4 / 3 / 4096 * 4096 ))
refusal="cordon: --tmp-size cannot be enforced by the landlock backend: it has no mount namespace, so its TMPDIR is a directory on the host's /tmp and its home is not a tmpfs (use --backend ns)"

# usage_errors: the same under either backend, before any backend is chosen.
usage_errors() {
        run --tmp-size lots -- true 2>"$T_TMP/err"
        check "--tmp-size lots: a usage error naming the option" \
                "2:cordon: --tmp-size 'lots': expected a size such as 64M or 1G, at most 1E; see 'cordon run --help'" \
                "$?:$(head -1 "$T_TMP/err")"
        run --tmp-size 0 -- true 2>"$T_TMP/err"
        check "--tmp-size 0: a usage error, not the kernel's default" \
                "2:cordon: --tmp-size '0': expected a size such as 64M or 1G, at most 1E; see 'cordon run --help'" \
                "$?:$(head -1 "$T_TMP/err")"
}

# memory_note: the banner of --memory under either backend has a note about tmpfs and memfd
# exactly when the memory limit is an rlimit (a cgroup charges tmpfs and memfd pages).
memory_note() {
        local o mech note
        o=$(cd "$T_PROJECT" && "$CORDON" run --memory 512M -- true 2>&1)
        mech=$(printf '%s\n' "$o" | sed -n 's/^cordon: limits memory=\([a-z0-9]*\).*/\1/p')
        note=$(printf '%s\n' "$o" | grep -c '^cordon: the memory limit (rlimit, no cgroup) cannot bound files in tmpfs or memfd; ')
        case $mech in
        rlimit) check "--memory (rlimit): the banner says tmpfs and memfd are outside it" "1" "$note" ;;
        cgroup*) check "--memory ($mech): no note about tmpfs (a cgroup charges it)" "0" "$note" ;;
        *) not_ok "--memory: the banner names a mechanism" "$o" ;;
        esac
}

if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
        plan 5
        out=$(run -- sh -c 'echo ran' 2>&1)
        rc=$?
        take_net_fallback
        check "control: the landlock backend runs here without --tmp-size" "0:ran" "$rc:$out"
        out=$(run --tmp-size 1M -- sh -c 'echo ran' 2>&1)
        check "--tmp-size under the landlock backend: refused (125), the command never runs" \
                "125:$refusal" "$?:$out"
        usage_errors
        memory_note
        exit 0
fi

plan 20
out=$(run -- python3 -c "$FILL" /tmp/fill 2048 2>&1)
check "control: 2 MiB into /tmp without --tmp-size" "0:OK" "$?:$out"
out=$(run --tmp-size 1M -- python3 -c "$FILL" /tmp/fill 2048 2>&1)
check "--tmp-size 1M: 2 MiB into /tmp fails with ENOSPC" "0:ENOSPC" "$?:$out"
out=$(run --tmp-size 1M -- python3 -c "$FILL" /tmp/fill 512 2>&1)
check "--tmp-size 1M: 512 KiB into /tmp fits" "0:OK" "$?:$out"
out=$(run --tmp-size 1M -- python3 -c "$SIZE" /tmp 2>&1)
check "--tmp-size 1M: /tmp is a 1 MiB file system" "0:1048576" "$?:$out"

out=$(run -- python3 -c "$FILL" "$HOME/fill" 2048 2>&1)
check "control: 2 MiB into the tmpfs home without --tmp-size" "0:OK" "$?:$out"
out=$(run --tmp-size 1M -- python3 -c "$FILL" "$HOME/fill" 2048 2>&1)
check "--tmp-size 1M: 2 MiB into the tmpfs home fails with ENOSPC" "0:ENOSPC" "$?:$out"
# shellcheck disable=SC2016 # $1 and $HOME are the sandbox shell's
out=$(run --tmp-size 1M -- sh -c 'python3 -c "$1" /tmp/fill 768 &&
        python3 -c "$1" "$HOME/fill" 768' sh "$FILL" 2>&1)
check "--tmp-size 1M: /tmp and the home have 1 MiB each, not 1 MiB together" "0:OK OK" \
        "$?:$(printf '%s\n' "$out" | tr '\n' ' ' | sed 's/ $//')"
check "... and nothing of it reached the host's home" "absent" \
        "$([ -e "$HOME/fill" ] && echo present || echo absent)"

out=$(run --backend landlock --tmp-size 1M -- sh -c 'echo ran' 2>&1)
check "--backend landlock --tmp-size: refused (125), the command never runs" \
        "125:$refusal" "$?:$out"
# --rw /tmp no longer takes the private /tmp away (it is refused itself); the lowering's check
# for a run with no tmpfs left is the unit test lower::tmp_size_with_no_tmpfs_refused.
run --tmp-size 1M --home-access write --rw /tmp -- true 2>"$T_TMP/err"
check "--tmp-size with --rw /tmp: refused (125)" \
        "125:cordon: EXTRA_WRITABLE_PATHS entry '/tmp' (from --rw) would replace the sandbox's own /tmp; turn PRIVATE_TMP off to share the host's /tmp" \
        "$?:$(head -1 "$T_TMP/err")"
usage_errors

# /dev/shm, and the default sizes.
out=$(run -- python3 -c "$FILL" /dev/shm/fill 2048 2>&1)
check "control: 2 MiB into /dev/shm without --tmp-size" "0:OK" "$?:$out"
out=$(run --tmp-size 1M -- python3 -c "$FILL" /dev/shm/fill 2048 2>&1)
check "--tmp-size 1M: 2 MiB into /dev/shm fails with ENOSPC" "0:ENOSPC" "$?:$out"
out=$(run --tmp-size 8M -- python3 -c "$SIZE" /dev/shm 2>&1)
check "--tmp-size 8M: /dev/shm is an 8 MiB file system" "0:8388608" "$?:$out"
# shellcheck disable=SC2016 # $1 and $HOME are the sandbox shell's
out=$(run -- sh -c 'for d in /tmp "$HOME" /dev/shm; do python3 -c "$1" "$d"; done' sh "$SIZE" 2>&1)
check "without --tmp-size: /tmp, the home and /dev/shm each get a third of a quarter of RAM" \
        "0:$share $share $share" "$?:$(printf '%s\n' "$out" | tr '\n' ' ' | sed 's/ $//')"
check "... so together they stay below a quarter of RAM (not the kernel's 150 %)" "yes" \
        "$([ $((share * 3)) -le $((ram / 4)) ] && echo yes || echo no)"
out=$(run --home-access read -- python3 -c "$SIZE" /dev/shm 2>&1)
check "without a tmpfs home (--home-access read): /tmp and /dev/shm split the quarter" \
        "0:$(( ram / 4 / 2 / 4096 * 4096 ))" "$?:$out"
memory_note

# --help says what the default is: the share computed above, a quarter of RAM together.
help=$("$CORDON" run --help 2>/dev/null | tr -s ' \n' ' ')
case $help in
*"--tmp-size SIZE size of each of the private /tmp, the tmpfs home and /dev/shm (default: together a quarter of RAM; ns backend only)"*)
        ok "--help: --tmp-size's default is the quarter of RAM they share" ;;
*) not_ok "--help: --tmp-size's default is the quarter of RAM they share" "$(printf '%s\n' "$help" | grep -o -- '--tmp-size.\{0,160\}')" ;;
esac
