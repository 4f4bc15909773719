#!/usr/bin/env bash
# Attack: write .git/info/ (attributes naming a filter or diff driver of the user's global
# configuration, exclude hiding a planted file from git status, sparse-checkout). Expected:
# .git/info is read-only under the ns backend (EROFS, for a new file and an existing one);
# the landlock backend refuses the start, naming PROTECT_GIT_CONFIG. Control: with
# PROTECT_GIT_CONFIG=false the write succeeds.
. "$(dirname "$0")/../lib/tap.sh"

git init -q "$T_PROJECT"
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }
plant='open(p, "w").write("* filter=evil\n")'

if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
        plan 2
        out=$(inside -- true); rc=$?
        check "landlock backend: the start is refused, naming PROTECT_GIT_CONFIG" "125:1" \
                "$rc:$(grep -c "^cordon: PROTECT_GIT_CONFIG cannot be enforced by the landlock backend" <<<"$out")"
        check "control: with PROTECT_GIT_CONFIG=false info/attributes can be written" "OK:14" \
                "$(PROTECT_GIT_CONFIG=false inside -- python3 -c "$TRY" "$plant" .git/info/attributes)"
        exit 0
fi

plan 3
inside -- true >/dev/null # the first start makes the stand-ins, with a warning line
check "creating .git/info/attributes: EROFS" "EROFS" \
        "$(inside -- python3 -c "$TRY" "$plant" .git/info/attributes)"
check "writing .git/info/exclude: EROFS" "EROFS" \
        "$(inside -- python3 -c "$TRY" 'open(p, "a").write("planted\n")' .git/info/exclude)"
check "control: with PROTECT_GIT_CONFIG=false info/attributes can be written" "OK:14" \
        "$(PROTECT_GIT_CONFIG=false inside -- python3 -c "$TRY" "$plant" .git/info/attributes)"
