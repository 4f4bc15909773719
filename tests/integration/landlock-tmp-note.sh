#!/usr/bin/env bash
# The landlock backend has no private /tmp: a create directly in the host's /tmp that no grant
# covers is refused (EACCES) with one line saying so and what to use instead. A name that is
# there already is no create: mkdir answers EEXIST as it does outside, with no line (it used to
# be EACCES and the note). Under the ns backend /tmp is the sandbox's own, and both work.
. "$(dirname "$0")/../lib/tap.sh"

# TRY PATH...: mkdir each PATH, printing OK or the errno name per line.
TRY='import errno, os, sys
for p in sys.argv[1:]:
    try:
        os.mkdir(p)
        print("OK")
    except OSError as e:
        print(errno.errorcode[e.errno])'
new=/tmp/cordon-tmp-note-$$-$RANDOM
plan 3
out=$(cd "$T_PROJECT" && timeout 60 "$CORDON" run --quiet -- python3 -c "$TRY" "$new" "$T_TMP" 2>"$T_TMP/err")
notes=$(grep -c "no private /tmp: creating '$new' was refused" "$T_TMP/err")
rmdir "$new" 2>/dev/null
# The test's directory holds the project, so it is there in the ns backend's private /tmp too.
check "a new name in /tmp: $(on_backend "made in the private /tmp" "EACCES"); an existing one: EEXIST" \
        "$(on_backend OK EACCES)
EEXIST" "$out"
check "$(on_backend "no line" "one line, for the new name only")" "$(on_backend 0 1)" "$notes"
check "nothing else on stderr" "$(on_backend 0 1)" "$(drop_net_fallback <"$T_TMP/err" | grep -c '')"
