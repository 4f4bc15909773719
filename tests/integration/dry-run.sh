#!/usr/bin/env bash
# `cordon run --dry-run` prints the resolved plan and changes nothing on the host, for every
# HOME_ACCESS mode and with --mask of a missing file and a missing HOME_WRITABLE directory: a
# snapshot of the watched trees (inodes, modes, sizes, mtimes, ctimes) is the same before and
# after, and under strace no system call that creates, changes or removes a file succeeds.
# Control: the same run without --dry-run does create the placeholder and the directory.
# The plan predicts the network mode and the backend the start delivers, fallbacks included,
# with the reason: the same as the real run's banner, with a pasta that cannot be used
# (NETWORK_FILTER_HELPER naming none) and, as root, for cordon-test with a /dev/net/tun it
# cannot open (a private mount namespace with a 0600 node over it: the host's is untouched).
. "$(dirname "$0")/../lib/tap.sh"

mask="$T_PROJECT/conf/key.pem"
# The watched tree: the home, with the project in it. (/tmp, where the landlock backend would
# make its TMPDIR, is shared with every other test running: strace watches that below.)
snapshot() { find "$HOME" -printf '%p %y %i %m %s %T@ %C@\n' | sort; }
# A HOME_WRITABLE entry of the test's own (the defaults hold none for a home without agents).
wr=(--set HOME_WRITABLE=.cache/tool)
dry() { (cd "$T_PROJECT" && "$CORDON" run --dry-run "${wr[@]}" --mask "$mask" "$@" -- true 2>&1); }

# Missing: the --mask file and its directory, the HOME_WRITABLE directory, and the
# credential directories a writable home gets placeholders for.
rm -rf "$T_PROJECT/conf" "$HOME/.cache" "$HOME/.ssh" "$HOME/.aws" "$HOME/.gnupg"

modes="tmpwrite restricted read write"
plan 24

for m in $modes; do
        before=$(snapshot)
        out=$(dry --home-access "$m"); rc=$?
        after=$(snapshot)
        check "--home-access $m: the dry run exits 0" "0" "$rc"
        if [ "$before" = "$after" ]; then
                ok "--home-access $m: nothing changed on the host"
        else
                not_ok "--home-access $m: nothing changed on the host" \
                        "$(diff <(echo "$before") <(echo "$after") | head -20)"
        fi
        case $out in
        *"create $mask (0600)"*"would report: BLOCKED_FILES: created empty placeholder '$mask' (from --mask)"*)
                ok "--home-access $m: the plan names the placeholder it would create" ;;
        *) not_ok "--home-access $m: the plan names the placeholder it would create" "$out" ;;
        esac
done

out=$(dry --home-access tmpwrite)
case $out in
*"mkdir  $HOME/.cache (0700)  for HOME_WRITABLE entry"*) ok "the plan names the missing HOME_WRITABLE directory" ;;
*) not_ok "the plan names the missing HOME_WRITABLE directory" "$out" ;;
esac
case $out in
*"mounts, in order"*"masked  $mask  (from --mask)"*"environment: "*" kept, "*" blocked, "*" set"*)
        ok "the plan lists the mounts with origins and the environment by count" ;;
*) not_ok "the plan lists the mounts with origins and the environment by count" "$out" ;;
esac

# strace: no call that creates, changes or removes a file succeeds (absent or unusable: the
# snapshots above are the check).
mutating='(mkdir|mkdirat|unlink|unlinkat|rmdir|rename|renameat|renameat2|link|linkat|symlink|symlinkat|chmod|fchmod|fchmodat|chown|fchown|fchownat|lchown|truncate|ftruncate|creat|utime|utimes|utimensat|futimesat|mknod|mknodat|setxattr|lsetxattr|removexattr|lremovexattr|mount|umount2)'
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
        (cd "$T_PROJECT" && strace -f -qq -e trace=%file,fchmod,fchown,ftruncate -o "$T_TMP/strace" \
                "$CORDON" run --dry-run --home-access write --mask "$mask" -- true >/dev/null 2>&1)
        # The backend's probe maps ids in a throwaway user namespace: /proc, not a file.
        ok_calls=$(grep -v ' = -1 ' "$T_TMP/strace" | grep -E '^[0-9]+ +[a-z0-9_]+\(' |
                grep -vE '"/proc/(self|[0-9]+)/(uid_map|gid_map|setgroups)"')
        changed=$(printf '%s\n' "$ok_calls" | grep -E "^[0-9]+ +$mutating\\(" ;
                printf '%s\n' "$ok_calls" | grep -E '^[0-9]+ +open(at|at2)?\(.*O_(CREAT|WRONLY|RDWR|TRUNC)')
        check "strace: no call that creates, changes or removes a file succeeded" "" "$changed"
else
        # Not a kernel feature: a plain skip, the snapshots above stay the check.
        _tap_n=$((_tap_n + 1))
        echo "ok $_tap_n - strace: no file changed # SKIP strace is not installed or cannot trace here"
fi

check "nothing of the plan exists yet" "absent:absent" \
        "$([ -e "$T_PROJECT/conf" ] && echo present || echo absent):$([ -e "$HOME/.cache" ] && echo present || echo absent)"

# Control: without --dry-run the same settings create them, and say so.
err=$(cd "$T_PROJECT" && "$CORDON" run --quiet "${wr[@]}" --home-access tmpwrite --mask "$mask" -- true 2>&1); rc=$?
check "control: the real run succeeds" "0" "$rc"
check "control: the real run creates the placeholder and the HOME_WRITABLE directory" \
        "file:dir" \
        "$([ -f "$mask" ] && echo file):$([ -d "$HOME/.cache/tool" ] && echo dir)"
case $err in
*"BLOCKED_FILES: created empty placeholder '$mask' (from --mask)"*)
        ok "control: the real run announces the placeholder" ;;
*) not_ok "control: the real run announces the placeholder" "$err" ;;
esac

# The plan's network line and backend against the banner of the same run for real.
banner_of() { (cd "$T_PROJECT" && "$CORDON" run "$@" -- true 2>&1 >/dev/null | grep -m1 '^cordon: backend='); }
predicts() { # DESCRIPTION OPTION...: the dry run's network and backend are the real run's
        local desc=$1 plan_out banner want got
        shift
        plan_out=$(cd "$T_PROJECT" && "$CORDON" run --dry-run "$@" -- true 2>/dev/null)
        banner=$(banner_of "$@")
        want=$(printf '%s\n' "$banner" | sed -n 's/.*backend=\([a-z]*\).*network=\([a-z]*\).*/\1 \2/p')
        got="$(printf '%s\n' "$plan_out" | sed -n 's/^backend: \([a-z]*\).*/\1/p') $(printf '%s\n' "$plan_out" | sed -n 's/^network: \([a-z]*\).*/\1/p')"
        check "$desc: the plan's backend and network are the start's" "$want" "$got"
}
predicts "default settings"
predicts "a pasta that cannot be used" --set NETWORK_FILTER_HELPER=/nonexistent/pasta
out=$(cd "$T_PROJECT" && "$CORDON" run --dry-run --set NETWORK_FILTER_HELPER=/nonexistent/pasta -- true 2>/dev/null)
case $out in
*"network: proxied (fallback: network mode filtered (from built-in default) cannot be delivered: pasta '/nonexistent/pasta'"*"NETWORK_FILTER_FALLBACK=stricter"*"using proxied instead)"* | \
*"network: proxied (fallback: network mode filtered (from built-in default) cannot be delivered: the landlock backend has no network namespace"*"using proxied instead)"*)
        ok "... the plan says proxied, why filtered falls back, and by which rule" ;;
*) not_ok "... the plan says proxied, why filtered falls back, and by which rule" "$(printf '%s\n' "$out" | grep '^network')" ;;
esac
case $(printf '%s\n' "$out" | grep '^backend: ') in
"backend: ns (auto: a probe created a user namespace)" | "backend: landlock (auto: user namespaces are unavailable here ("*) ok "the plan's backend says how auto decided" ;;
"backend: landlock") [ "${SANDBOX_BACKEND:-}" = landlock ] && ok "the plan's backend is the one asked for" ||
        not_ok "the plan's backend says how auto decided" "backend: landlock" ;;
*) not_ok "the plan's backend says how auto decided" "$(printf '%s\n' "$out" | grep '^backend')" ;;
esac

# As root: cordon-test with the tun device it cannot open, as on a host without udev.
if [ "$(id -u)" = 0 ] && id cordon-test >/dev/null 2>&1 && [ -c /dev/net/tun ]; then
        d=$(mktemp -d /tmp/cordon-dry-tun.XXXXXX)
        proj=$d/proj
        mkdir "$proj" && chown cordon-test: "$proj" && chmod 755 "$d"
        # shellcheck disable=SC2016
        both=$(unshare -m --propagation private -- sh -c '
                mount -t tmpfs tmpfs "$1/dev" 2>/dev/null || { mkdir "$1/dev" && mount -t tmpfs tmpfs "$1/dev"; }
                mknod -m 0600 "$1/dev/tun" c 10 200 && mount --bind "$1/dev/tun" /dev/net/tun || exit 99
                cd "$1/proj"
                setpriv --reuid=cordon-test --regid=cordon-test --init-groups --reset-env -- "$2" run --dry-run -- true 2>/dev/null | grep "^network: "
                setpriv --reuid=cordon-test --regid=cordon-test --init-groups --reset-env -- "$2" run -- true 2>&1 >/dev/null | grep -m1 "^cordon: backend="
                ' sh "$d" "$CORDON")
        rm -rf "$d"
        case $both in
        "network: proxied (fallback: network mode filtered (from built-in default) cannot be delivered: pasta cannot open /dev/net/tun"*"using proxied instead)"*"network=proxied"*)
                ok "cordon-test, /dev/net/tun 0600: the plan and the start both say proxied, and why" ;;
        *) not_ok "cordon-test, /dev/net/tun 0600: the plan and the start both say proxied, and why" "$both" ;;
        esac
else
        _tap_n=$((_tap_n + 1))
        echo "ok $_tap_n - cordon-test with an unusable /dev/net/tun # SKIP needs root and the user cordon-test"
fi
