#!/usr/bin/env bash
# tap: exclusive (it counts the /tmp/cordon-XXXXXX of its user before and after: a run beside it,
# as the same user in another stream, would add its own)
# What a sandbox leaves in its scratch /tmp goes with it, however it is shaped: a chain of
# directories five times longer than PATH_MAX, a directory made mode 000 with a file in it and a
# link out to a host file. The landlock backend's private TMPDIR on the host is removed whole
# (the removal used to stop at PATH_MAX and leave the chain, and the directory, behind); the
# link's target stays. Under the ns backend /tmp is a tmpfs that goes with the namespace.
# Controls: the chain's deepest file was there inside, and the TMPDIR was in use.
. "$(dirname "$0")/../lib/tap.sh"

tmpdirs() { find /tmp -maxdepth 1 -name 'cordon-??????' -user "$(id -u)" 2>/dev/null | sort; }
MAKE='import os, sys
top = os.environ.get("TMPDIR") or "/tmp"
os.chdir(top)
name = "d" * 200
for _ in range(100):
    os.mkdir(name)
    os.chdir(name)
open("deepest", "w").write("x")
deep_ok = os.path.exists("deepest")
os.chdir(top)
os.mkdir("locked")
open("locked/inner", "w").write("x")
os.chmod("locked", 0)
os.symlink(sys.argv[1], "out")
print("made" if deep_ok else "not made", "in the TMPDIR" if top != "/tmp" else "in /tmp")'
plan 5
echo keep >"$T_TMP/host-file"
before=$(tmpdirs)
out=$(cd "$T_PROJECT" && timeout 120 "$CORDON" run --quiet --net isolated -- python3 -c "$MAKE" \
        "$T_TMP/host-file" 2>&1)
check "control: the tree was made $(on_backend "in /tmp" "in the TMPDIR")" \
        "made $(on_backend "in /tmp" "in the TMPDIR")" "$out"
left=$(comm -13 <(echo "$before") <(tmpdirs))
check "no private TMPDIR is left behind" "" "$left"
[ -n "$left" ] && chmod -R u+rwx "$left" 2>/dev/null && rm -rf "$left"
check "the link's target outside is untouched" "keep" "$(cat "$T_TMP/host-file")"
# The same after a SIGKILL of cordon while the tree is there (the reaper removes it).
before=$(tmpdirs)
rm -f "$T_PROJECT/made"
(cd "$T_PROJECT" && exec "$CORDON" run --quiet --net isolated -- sh -c \
        'python3 -c "$1" "$2" >made.part && mv made.part made && exec sleep 300' sh "$MAKE" \
        "$T_TMP/host-file") &
sup=$!
for _ in $(seq 600); do
        [ -s "$T_PROJECT/made" ] && break
        sleep 0.05
done
exec 3>&2 2>/dev/null
kill -KILL "$sup"
wait "$sup"
exec 2>&3 3>&-
for _ in $(seq 100); do
        [ -z "$(comm -13 <(echo "$before") <(tmpdirs))" ] && break
        sleep 0.05
done
check "control: the tree was made before the kill" \
        "made $(on_backend "in /tmp" "in the TMPDIR")" "$(cat "$T_PROJECT/made" 2>&1)"
left=$(comm -13 <(echo "$before") <(tmpdirs))
check "after SIGKILL of cordon no private TMPDIR is left behind" "" "$left"
[ -n "$left" ] && chmod -R u+rwx "$left" 2>/dev/null && rm -rf "$left"
exit 0
