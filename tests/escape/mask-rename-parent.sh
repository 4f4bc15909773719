#!/usr/bin/env bash
# Attack: carry a mask away by renaming a directory above it (mv a a.old), so that the next run,
# which finds masked paths by name, leaves the secret readable at a.old/b/secret.yml. Expected:
# every directory between the project root and the masked path is a mount point inside, so each
# rename fails with EBUSY (ns backend); the landlock backend refuses it with its own errno, and
# the secret stays hidden on the next run. Control: renaming a sibling directory still works.
. "$(dirname "$0")/../lib/tap.sh"

P=$T_PROJECT
reset() {
        rm -rf "$P/a" "$P/a.old" "$P/c" "$P/c.old" "$P/sib" "$P/sib.old"
        mkdir -p "$P/a/b" "$P/c/d/e" "$P/sib"
        echo "token: r3nam3d" > "$P/a/b/secret.yml"
        echo "token: h1dd3n" > "$P/c/d/e/key"
}
# try BACKEND PATH: renames PATH to PATH.old inside, with the --mask and --hide of the test
# (stderr dropped: the landlock backend warns about what it cannot protect).
try() {
        (cd "$P" && "$CORDON" run --quiet --backend "$1" --mask "$P/a/b/secret.yml" --hide "$P/c/d" \
                -- python3 -c "$TRY" 'os.rename(p, p + ".old")' "$2" 2>/dev/null)
}
second_run() {
        (cd "$P" && "$CORDON" run --quiet --backend "$1" --mask "$P/a/b/secret.yml" --hide "$P/c/d" \
                -- sh -c 'cat a/b/secret.yml a.old/b/secret.yml a/b.old/secret.yml c/d/e/key \
                        c.old/d/e/key c/d.old/e/key 2>/dev/null; true' 2>&1)
}

plan 12
reset
check "control: a sibling directory can be renamed" "OK:None" "$(try ns sib)"
for path in a a/b a/b/secret.yml c c/d; do
        reset
        check "ns: renaming $path: EBUSY" "EBUSY" "$(try ns "$path")"
        out=$(second_run ns)
        case $out in
        *r3nam3d* | *h1dd3n*) not_ok "ns: the secrets stay hidden after renaming $path" "$out" ;;
        *) ok "ns: the secrets stay hidden after renaming $path" ;;
        esac
done
# The landlock backend carves the directories on the way to a mask: they have no right to
# remove entries, so the rename is refused before any mount would matter.
reset
check "landlock: renaming a: EACCES" "EACCES" "$(try landlock a)"
