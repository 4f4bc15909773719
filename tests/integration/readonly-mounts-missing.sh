#!/usr/bin/env bash
# A READONLY_MOUNTS entry the host does not have is a read-only grant of nothing: the command
# runs, and one warning line names every such entry with its origin (a dangling symlink too).
# An entry that is there but cannot be resolved (a symlink loop, a directory the user may not
# search) still refuses, and so does a missing EXTRA_WRITABLE_PATHS entry; a missing
# EXTRA_BLOCKED_PATHS entry behaves as before (the command runs, nothing appears). Control: an
# entry that exists is shown read-only and gives no warning.
. "$(dirname "$0")/../lib/tap.sh"

plan 13
cd "$T_PROJECT" || exit 1
conf=$T_TMP/ro.conf
mkdir -p "$T_TMP/data" && echo DATA >"$T_TMP/data/f"
ln -s "$T_TMP/nothing" "$T_TMP/dangling"
ln -s "$T_TMP/loop" "$T_TMP/loop"
# run ARGS...: "STATUS|STDOUT|the READONLY_MOUNTS warning lines" of a run with $conf.
run() {
        local out err rc
        out=$(CORDON_CONF=$conf "$CORDON" run --quiet "$@" 2>"$T_TMP/err"); rc=$?
        err=$(grep 'READONLY_MOUNTS' "$T_TMP/err")
        printf '%s|%s|%s' "$rc" "$out" "$err"
}
W="cordon: warning: READONLY_MOUNTS"

printf 'READONLY_MOUNTS+=("%s")\n' "$T_TMP/absent" >"$conf"
line="$W entry not on this host, not shown inside: '$T_TMP/absent' (from $conf:1)"
check "a missing entry: the command runs, and one line names it with its file and line" \
        "0|RAN|$line" "$(run -- echo RAN)"
check "the missing entry is not there inside" "0|ENOENT|$line" \
        "$(run -- python3 -c "$TRY" 'os.stat(p)' "$T_TMP/absent")"
printf '# data\nREADONLY_MOUNTS+=("%s" "%s")\n' "$T_TMP/absent" "$T_TMP/dangling" >"$conf"
check "several missing entries, a dangling symlink and --ro among them: still one line" \
        "0|RAN|$W entries not on this host, not shown inside: '$T_TMP/absent' (from $conf:2), '$T_TMP/also-absent' (from --ro), '$T_TMP/dangling' (from $conf:2, a symlink to nothing)" \
        "$(run --ro "$T_TMP/also-absent" -- echo RAN)"

# Control: an entry that exists is shown read-only, without a warning.
printf 'READONLY_MOUNTS+=("%s")\n' "$T_TMP/data" >"$conf"
check "control: an existing entry is readable inside, without a warning" "0|DATA|" \
        "$(run -- cat "$T_TMP/data/f")"
check "control: ... and not writable" "0|$(on_backend EROFS EACCES)|" \
        "$(run -- python3 -c "$TRY" 'open(p, "w")' "$T_TMP/data/f")"
check "control: ... nor can anything be created in it" "0|$(on_backend EROFS EACCES)|" \
        "$(run -- python3 -c "$TRY" 'os.mkdir(p)' "$T_TMP/data/new")"
check "control: the host file is unchanged" DATA "$(cat "$T_TMP/data/f")"

# Only ENOENT is missing.
printf 'READONLY_MOUNTS+=("%s")\n' "$T_TMP/loop" >"$conf"
out=$(run -- echo RAN)
check_like "an entry that is a symlink loop refuses the start" \
        "125||*READONLY_MOUNTS entry '$T_TMP/loop' (from $conf:1)*" "$out"
if [ "$(id -u)" = 0 ]; then
        ok "an entry below a directory the user may not search refuses the start # SKIP root searches every directory"
else
        mkdir -p "$T_TMP/locked/in" && chmod 0 "$T_TMP/locked"
        printf 'READONLY_MOUNTS+=("%s")\n' "$T_TMP/locked/in" >"$conf"
        out=$(run -- echo RAN)
        chmod 0755 "$T_TMP/locked"
        check_like "an entry below a directory the user may not search refuses the start" \
                "125||*READONLY_MOUNTS entry '$T_TMP/locked/in' (from $conf:1): Permission denied*" "$out"
fi

# Writable grants and restrictions keep what they did.
printf 'EXTRA_WRITABLE_PATHS+=("%s")\n' "$T_TMP/absent-rw" >"$conf"
out=$(CORDON_CONF=$conf "$CORDON" run --quiet -- echo RAN 2>&1); rc=$?
check "a missing EXTRA_WRITABLE_PATHS entry still refuses the start, naming it" \
        "125:cordon: EXTRA_WRITABLE_PATHS entry '$T_TMP/absent-rw' (from $conf:1): No such file or directory" \
        "$rc:$out"
printf 'EXTRA_BLOCKED_PATHS+=("%s")\n' "$T_TMP/absent-blocked" >"$conf"
check "a missing EXTRA_BLOCKED_PATHS entry: the command runs, without a READONLY_MOUNTS line" \
        "0|ENOENT|" "$(run -- python3 -c "$TRY" 'os.stat(p)' "$T_TMP/absent-blocked")"
check "... and nothing is made on the host" absent \
        "$([ -e "$T_TMP/absent-blocked" ] && echo present || echo absent)"
out=$(CORDON_CONF=$conf "$CORDON" run --quiet -- true 2>&1)
take_net_fallback
check "... and it gives no warning at all" "" "$out"
