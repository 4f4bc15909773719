#!/usr/bin/env bash
# Attack: modify /usr (create, unlink, rename, mkdir, chmod, overwrite a binary) from inside.
# Control: the same operations on the project succeed inside the same sandbox.
. "$(dirname "$0")/../lib/tap.sh"

# Runs each "expression|path" pair in turn inside one sandbox, one result per line.
MULTI='import errno, os, sys
for arg in sys.argv[1:]:
    expr, p = arg.split("|", 1)
    try:
        eval(expr)
        print("OK")
    except OSError as e:
        print(errno.errorcode[e.errno])'
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet -- python3 -c "$MULTI" "$@" 2>&1 | tr '\n' ' '); }

for t in unlink-me rename-me chmod-me; do echo "#!/bin/sh" > "$T_PROJECT/$t"; done
ops() { # ops DIR UNLINK RENAME CHMOD
        echo "open(p, \"x\").close()|$1/cordon-evil"
        echo "os.unlink(p)|$2"
        echo "os.rename(p, p + \".x\")|$3"
        echo "os.mkdir(p)|$1/cordon-dir"
        echo "os.chmod(p, 0o777)|$4"
}
mapfile -t usr_ops < <(ops /usr/bin /usr/bin/env /usr/bin/env /usr/bin/env)
p=$T_PROJECT
mapfile -t proj_ops < <(ops "$p" "$p/unlink-me" "$p/rename-me" "$p/chmod-me")

plan 3
check "control: create, unlink, rename, mkdir, chmod in the project" "OK OK OK OK OK " \
        "$(inside "${proj_ops[@]}")"
check "create, unlink, rename, mkdir, chmod in /usr/bin: all EROFS" "EROFS EROFS EROFS EROFS EROFS " \
        "$(inside "${usr_ops[@]}")"
# Opening an existing binary for writing: the permission check comes before the read-only
# mount check, so a user that does not own it gets EACCES, its owner (root) gets EROFS.
if [ "$(id -u)" -eq "$(stat -c %u /usr/bin/env)" ]; then want=EROFS; else want=EACCES; fi
check "opening /usr/bin/env for writing: $want" "$want " "$(inside 'open(p, "r+b")|/usr/bin/env')"
