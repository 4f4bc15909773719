#!/usr/bin/env bash
# Must still work: the project is writable (files, directories, renames, deletes) and lands on the
# host; /tmp is writable inside but private.
. "$(dirname "$0")/../lib/tap.sh"

echo "old" > "$T_PROJECT/to-delete"

plan 6
run_sandboxed sh -c 'mkdir -p a/b && echo data > a/b/f && mv a/b/f a/b/g && rm to-delete && echo ok'
check "create, rename, delete in the project" "0:ok" "$rc:$out"
check "the host sees the new file" "data" "$(cat "$T_PROJECT/a/b/g" 2>&1)"
check "the host sees the deletion" "gone" "$([ -e "$T_PROJECT/to-delete" ] || echo gone)"
run_sandboxed sh -c 'echo scratch > /tmp/x && cat /tmp/x && mkdir /tmp/d && ls -ld /tmp | cut -c1-10'
check "/tmp is writable inside (mode 1777)" "0:scratch
drwxrwxrwt" "$rc:$out"
host_x=$(cat /tmp/x 2>/dev/null)
check "the /tmp file did not reach the host /tmp" "absent" \
        "$([ "$host_x" = scratch ] && echo present || echo absent)"
run_sandboxed sh -c 'cat /tmp/x 2>&1'
check "a second sandbox starts with an empty /tmp" "1:cat: /tmp/x: No such file or directory" "$rc:$out"
