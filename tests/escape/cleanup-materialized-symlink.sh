#!/usr/bin/env bash
# Attack: with CLEANUP_MATERIALIZED_BLOCKED_FILES, the sandbox moves the directory cordon made
# for a BLOCKED_FILES placeholder away and plants a symlink in its place pointing at a victim
# directory holding an empty file of the same name, hoping the cleanup after the run follows it
# and deletes the victim's file. The cleanup opens parents with RESOLVE_NO_SYMLINKS, so the
# victim's file stays and the placeholder is reported kept. Controls: without the trick the
# placeholder and its directories are removed; a placeholder that grew is kept with a note;
# without the variable they all stay.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "BLOCKED_FILES placeholders are covered by mounts"

proj=$(realpath "$T_PROJECT")
victim=$T_TMP/victim
mkdir -p "$victim"; : >"$victim/secret.md"
run() { out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated "$@" 2>&1); rc=$?; }

plan 9
run --cleanup-materialized --mask "$proj/m/d/secret.md" -- true
check "control: the placeholder is gone after the run" "no" "$([ -e "$proj/m/d/secret.md" ] && echo yes || echo no)"
check "control: so are the directories made for it" "no" "$([ -e "$proj/m" ] && echo yes || echo no)"

run --cleanup-materialized --mask "$proj/m/d/secret.md" -- python3 -c "$TRY" 'os.rename("m/d", "m/moved")'
check "inside, the directory holding the placeholder cannot be moved away" "EBUSY" \
        "$(printf '%s\n' "$out" | grep -v '^cordon:')"
rm -rf "$proj/m"
# Something outside the sandbox (the host, another sandbox) swaps the directory for a link while
# the sandbox runs.
(cd "$T_PROJECT" && exec "$CORDON" run --quiet --net isolated --set CLEANUP_MATERIALIZED_BLOCKED_FILES=1 \
        --mask "$proj/m/d/secret.md" -- sh -c ': >ready; while [ ! -e go ]; do sleep 0.05; done' \
        >"$T_TMP/cleanup.out" 2>&1) &
# The placeholder exists from the prepare phase on; the swap waits for the command to run.
for _ in $(seq 400); do [ -e "$proj/ready" ] && break; sleep 0.05; done
mv "$proj/m/d" "$proj/m/moved" && ln -s "$victim" "$proj/m/d" && touch "$proj/go"
wait $!; rc=$?; out=$(cat "$T_TMP/cleanup.out")
check "control: the run ends normally" "0" "$rc"
check "the victim's empty file is not removed through the link" "yes" \
        "$([ -f "$victim/secret.md" ] && echo yes || echo no)"
check "the symlink is left alone, and the placeholder reported kept" "yes:1" \
        "$([ -L "$proj/m/d" ] && echo yes || echo no):$(printf '%s\n' "$out" | grep -c "kept .*'$proj/m/d/secret.md'")"
rm -f "$proj/go" "$proj/ready"
rm -rf "$proj/m"

# A placeholder that grows on the host while the sandbox runs is kept, with a note.
(cd "$T_PROJECT" && exec "$CORDON" run --quiet --net isolated --cleanup-materialized \
        --mask "$proj/g.md" -- sh -c ': >ready; while [ ! -e go ]; do sleep 0.05; done' \
        >"$T_TMP/cleanup.out" 2>&1) &
for _ in $(seq 400); do [ -e "$proj/ready" ] && break; sleep 0.05; done
echo real-edit >"$proj/g.md"; touch "$proj/go"
wait $!; out=$(cat "$T_TMP/cleanup.out")
check "a placeholder that grew is kept with a note" "real-edit:1" \
        "$(cat "$proj/g.md"):$(printf '%s\n' "$out" | grep -c "kept placeholder '$proj/g.md'.*no longer empty")"
rm -f "$proj/g.md" "$proj/go" "$proj/ready"
run --cleanup-materialized --mask "$proj/g.md" -- python3 -c "$TRY" 'open(p, "w")' "$proj/g.md"
check "control: inside, the placeholder cannot be written" "EROFS" \
        "$(printf '%s\n' "$out" | grep -v '^cordon:')"
run --mask "$proj/k.md" -- true
check "control: without the variable the placeholder stays" "yes" "$([ -f "$proj/k.md" ] && echo yes || echo no)"
rm -f "$proj/k.md"
