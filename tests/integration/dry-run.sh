#!/usr/bin/env bash
# `cordon run --dry-run` prints the resolved plan and changes nothing on the host, for every
# HOME_ACCESS mode and with --mask of a missing file and a missing HOME_WRITABLE directory: a
# snapshot of the watched trees (inodes, modes, sizes, mtimes, ctimes) is the same before and
# after, and under strace no system call that creates, changes or removes a file succeeds.
# Control: the same run without --dry-run does create the placeholder and the directory.
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
plan 19

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
        *"create $mask (0600)"*"would report: created empty placeholder '$mask' for blocked file (from --mask)"*)
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
        ok_calls=$(grep -v ' = -1 ' "$T_TMP/strace" | grep -E '^[0-9]+ +[a-z0-9_]+\(')
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
*"created empty placeholder '$mask' for blocked file (from --mask)"*)
        ok "control: the real run announces the placeholder" ;;
*) not_ok "control: the real run announces the placeholder" "$err" ;;
esac
