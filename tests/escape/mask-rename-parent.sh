#!/usr/bin/env bash
# Attack: carry a mask away by renaming a directory above it (mv a a.old), so that the next run,
# which finds masked paths by name, leaves the secret readable at a.old/b/secret.yml. Expected:
# every directory between the project root and the masked path is a mount point inside, so each
# rename fails with EBUSY (ns backend); the landlock backend refuses it with its own errno, and
# the secret stays hidden on the next run. Control: renaming a sibling directory still works.
# Attack 2: a --ro directory of the writable project with a mask deeper in it: the directory
# kept in place between them must stay read-only (its pin takes the read-only bind's access),
# so nothing can be written there (EROFS; EACCES under Landlock). Control: the project beside
# it is writable.
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

plan 15
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

# --- a --ro directory with a mask deeper in it ---
rm -rf "$P/ro"
mkdir -p "$P/ro/b"
echo "token: r0" >"$P/ro/b/secret.yml"
for be in ns landlock; do
        want=$([ "$be" = ns ] && echo EROFS || echo EACCES)
        out=$(cd "$P" && "$CORDON" run --quiet --backend "$be" --ro "$P/ro" --mask "$P/ro/b/secret.yml" \
                -- python3 -c "$TRY" 'open(p, "w").write("planted")' "$P/ro/b/new" 2>/dev/null)
        check "$be: --ro with a mask deeper in it: writing beside the mask: $want" "$want|absent" \
                "$out|$([ -e "$P/ro/b/new" ] && echo present || echo absent)"
        rm -f "$P/ro/b/new"
done
check "control: the project beside it is writable" "OK:7" \
        "$(cd "$P" && "$CORDON" run --quiet --ro "$P/ro" --mask "$P/ro/b/secret.yml" \
                -- python3 -c "$TRY" 'open(p, "w").write("planted")' "$P/sib-file" 2>/dev/null)"
rm -rf "$P/ro" "$P/sib-file"
