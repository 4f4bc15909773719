#!/usr/bin/env bash
# Attack: ask for a device *directory* that cordon cannot fully inspect (a subdirectory the
# caller may not read could hold a block device or a blacklisted node). An incomplete check
# must refuse the directory, not expose it. Control: a readable directory of the same shape is
# exposed; as root (who reads everything) the walk completes, so that run is the control too.
. "$(dirname "$0")/../lib/tap.sh"

dir=$(mktemp -d /dev/shm/cordon-devdir.XXXXXX)
trap 'chmod -R u+rwx "$dir"; rm -rf "$dir"' EXIT
mkdir "$dir/open" "$dir/locked"
touch "$dir/open/node"
chmod 755 "$dir"

plan 2
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --device "$dir" -- ls "$dir/open" 2>&1); rc=$?
check "control: a readable device directory is exposed" "0:node" "$rc:$out"
chmod 000 "$dir/locked"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --device "$dir" -- ls "$dir" 2>&1); rc=$?
if [ "$(id -u)" -eq 0 ]; then
        check "as root the walk completes: the directory is exposed" "0:locked open" "$rc:$(echo $out)"
else
        case "$rc:$out" in
        "2:"*"is a directory holding '$dir/locked', which cannot be inspected; not exposed"*"No such file or directory"*)
                ok "a directory whose walk fails is not exposed, naming what could not be inspected" ;;
        *) not_ok "a directory whose walk fails is not exposed, naming what could not be inspected" "rc=$rc" "output: $out" ;;
        esac
fi
