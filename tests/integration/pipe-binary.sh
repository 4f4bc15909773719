#!/usr/bin/env bash
# Must still work: binary data piped through a sandboxed command arrives unchanged (100 MiB of
# random bytes through cat, compared by SHA-256; the control drops one byte and must be caught),
# and end of input works both ways: the command sees EOF when the writer finishes, and cordon
# ends with the command's status when the command stops reading first.
. "$(dirname "$0")/../lib/tap.sh"

# cordon run --quiet -- CMD... from the project; stdin and stdout as the caller sets them, stderr
# into $T_TMP/err (kept apart so it cannot mix with the data).
crun() { (cd "$T_PROJECT" && "$CORDON" run --quiet -- "$@") 2>"$T_TMP/err"; }
sum() { sha256sum | cut -d' ' -f1; }

in=$T_TMP/random.bin
head -c 104857600 /dev/urandom >"$in"
want=$(sum <"$in")

plan 9

check "control: the input is 100 MiB" "104857600" "$(stat -c %s "$in")"

got=$(cat "$in" | crun cat | sum; echo "${PIPESTATUS[1]}")
check "100 MiB through a pipe into cat and out of it: the same SHA-256, status 0" \
        "$want 0" "$(printf '%s' "$got" | paste -sd' ')"
check "100 MiB: nothing on stderr" "" "$(drop_net_fallback <"$T_TMP/err" | head -c 300)"

# The comparison is not vacuous: one byte fewer gives another sum, the one computed without cordon.
cut_one=$(head -c -1 "$in" | sum)
got=$(cat "$in" | crun head -c -1 | sum)
if [ "$got" = "$cut_one" ] && [ "$got" != "$want" ]; then
        ok "control: head -c -1 inside: the sum of the input minus its last byte, not the input's"
else
        not_ok "control: head -c -1 inside: the sum of the input minus its last byte, not the input's" \
                "input: $want" "input minus one byte: $cut_one" "through cordon: $got"
fi

stdin_kind=$(printf 'x' | crun python3 -c 'import os, stat
print("pipe" if stat.S_ISFIFO(os.fstat(0).st_mode) else "other", "tty" if os.isatty(0) else "no-tty")')
check "the command's stdin is a pipe, not a terminal" "pipe no-tty" "$stdin_kind"

got=$(printf 'abc' | crun cat | od -An -tx1 | tr -d ' \n'; echo ":${PIPESTATUS[1]}")
check "printf abc | cat: exactly the bytes 61 62 63, status 0" "616263:0" "$got"

crun cat </dev/null >"$T_TMP/empty"
rc=$?
check "cat </dev/null: status 0 and no output" "0:0" "$rc:$(stat -c %s "$T_TMP/empty")"

# The writer never stops; head exits after 10 bytes, and cordon must follow it rather than wait
# for an end of input that never comes (timeout's 124 would say it did).
got=$(yes | timeout 30 bash -c 'cd "$T_PROJECT" && "$CORDON" run --quiet -- head -c 10' 2>"$T_TMP/err" |
        od -An -tx1 | tr -d ' \n'; echo ":${PIPESTATUS[1]}")
check "yes | head -c 10: ten bytes, cordon exits with head's status 0" "790a790a790a790a790a:0" "$got"
# Control: the same pipeline without cordon gives the same ten bytes and status.
got=$(yes | head -c 10 | od -An -tx1 | tr -d ' \n'; echo ":${PIPESTATUS[1]}")
check "control: yes | head -c 10 without cordon" "790a790a790a790a790a:0" "$got"
