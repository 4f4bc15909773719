#!/usr/bin/env bash
# Attack: write a submodule's git directory under .git/modules (its config sets
# core.fsmonitor, which the host's git runs when it enters the submodule), or make a new one
# there. Expected: .git/modules is read-only under the ns backend (EROFS), made empty first
# where missing; the landlock backend refuses the start, naming PROTECT_GIT_CONFIG. Control:
# with PROTECT_GIT_CONFIG=false both writes succeed.
. "$(dirname "$0")/../lib/tap.sh"

git init -q "$T_PROJECT"
git init -q --bare "$T_PROJECT/.git/modules/sub"
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }
plant='open(p, "a").write("[core]\n\tfsmonitor = touch pwned\n")'

if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
        plan 2
        out=$(inside -- true); rc=$?
        check "landlock backend: the start is refused, naming PROTECT_GIT_CONFIG" "125:1" \
                "$rc:$(grep -c "^cordon: PROTECT_GIT_CONFIG cannot be enforced by the landlock backend" <<<"$out")"
        check "control: with PROTECT_GIT_CONFIG=false modules/sub/config can be written" "OK:32" \
                "$(PROTECT_GIT_CONFIG=false inside -- python3 -c "$TRY" "$plant" .git/modules/sub/config)"
        exit 0
fi

plan 4
inside -- true >/dev/null # the first start makes the stand-ins, with a warning line
check "writing .git/modules/sub/config: EROFS" "EROFS" \
        "$(inside -- python3 -c "$TRY" "$plant" .git/modules/sub/config)"
check "making .git/modules/new: EROFS" "EROFS" \
        "$(inside -- python3 -c "$TRY" 'os.mkdir(p)' .git/modules/new)"
check "the submodule's config has no fsmonitor" "" \
        "$(git -C "$T_PROJECT/.git/modules/sub" config --get core.fsmonitor)"
check "control: with PROTECT_GIT_CONFIG=false modules/sub/config can be written" "OK:32" \
        "$(PROTECT_GIT_CONFIG=false inside -- python3 -c "$TRY" "$plant" .git/modules/sub/config)"
