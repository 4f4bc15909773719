#!/usr/bin/env bash
# Must still work: the project is writable (files, directories, renames, deletes) and lands on the
# host; the scratch directory (/tmp, or TMPDIR under the landlock backend) is writable inside
# but private.
. "$(dirname "$0")/../lib/tap.sh"

echo "old" > "$T_PROJECT/to-delete"

plan 6
run_sandboxed sh -c 'mkdir -p a/b && echo data > a/b/f && mv a/b/f a/b/g && rm to-delete && echo ok'
check "create, rename, delete in the project" "0:ok" "$rc:$out"
check "the host sees the new file" "data" "$(cat "$T_PROJECT/a/b/g" 2>&1)"
check "the host sees the deletion" "gone" "$([ -e "$T_PROJECT/to-delete" ] || echo gone)"
run_sandboxed sh -c 'd=${TMPDIR:-/tmp}; echo scratch > $d/x && cat $d/x && mkdir $d/d && ls -ld $d | cut -c1-10'
check "the scratch directory is writable inside" "0:scratch
$(on_backend drwxrwxrwt drwx------)" "$rc:$out"
host_x=$(cat /tmp/x 2>/dev/null)
check "the /tmp file did not reach the host /tmp" "absent" \
        "$([ "$host_x" = scratch ] && echo present || echo absent)"
run_sandboxed sh -c 'cat "${TMPDIR:-/tmp}/x" 2>&1'
case "$rc:$out" in
"1:cat: "*"/x: No such file or directory") ok "a second sandbox starts with an empty scratch directory" ;;
*) not_ok "a second sandbox starts with an empty scratch directory" "$rc:$out" ;;
esac
