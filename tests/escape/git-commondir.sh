#!/usr/bin/env bash
# Attack: write .git/commondir naming a directory of the sandbox's own whose config sets
# core.fsmonitor: the host's next `git status` takes that config and runs the command.
# Expected: the ns backend made .git/commondir first (".", the directory itself) and keeps it
# read-only (EROFS; renaming a file over it: EBUSY); the landlock backend refuses the start,
# naming PROTECT_GIT_CONFIG. Control: with PROTECT_GIT_CONFIG=false the write succeeds.
. "$(dirname "$0")/../lib/tap.sh"

git init -q "$T_PROJECT"
mkdir "$T_PROJECT/evil"
printf '[core]\n\tfsmonitor = "touch %s/pwned; false"\n' "$T_PROJECT" > "$T_PROJECT/evil/config"
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }
plant='open(p, "w").write(os.getcwd() + "/evil\n")'

if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
        plan 2
        out=$(inside -- true); rc=$?
        check "landlock backend: the start is refused, naming PROTECT_GIT_CONFIG" "125:1" \
                "$rc:$(grep -c "^cordon: PROTECT_GIT_CONFIG cannot be enforced by the landlock backend" <<<"$out")"
        check "control: with PROTECT_GIT_CONFIG=false .git/commondir can be written" "OK:$((${#T_PROJECT} + 6))" \
                "$(PROTECT_GIT_CONFIG=false inside -- python3 -c "$TRY" "$plant" .git/commondir)"
        exit 0
fi

plan 5
inside -- true >/dev/null # the first start makes the stand-ins, with a warning line
check "writing .git/commondir: EROFS" "EROFS" "$(inside -- python3 -c "$TRY" "$plant" .git/commondir)"
check "renaming a file over .git/commondir: EBUSY" "EBUSY" \
        "$(inside -- python3 -c "$TRY" 'open(".git/c", "w").write("evil\n") and os.rename(".git/c", p)' .git/commondir)"
git -C "$T_PROJECT" status >/dev/null 2>&1
check "the host's git status ran no planted command" "no" "$([ -e "$T_PROJECT/pwned" ] && echo yes || echo no)"
check "the host's git keeps its own configuration" "$(realpath "$T_PROJECT")/.git" \
        "$(git -C "$T_PROJECT" rev-parse --path-format=absolute --git-common-dir)"
check "control: with PROTECT_GIT_CONFIG=false .git/commondir can be written" "OK:2" \
        "$(PROTECT_GIT_CONFIG=false inside -- python3 -c "$TRY" 'open(p, "w").write(".\n")' .git/commondir)"
