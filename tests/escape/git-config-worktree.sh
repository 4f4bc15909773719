#!/usr/bin/env bash
# Attack: with extensions.worktreeConfig on, write .git/config.worktree with core.fsmonitor,
# which the host's next git command reads after .git/config. Expected: the ns backend made an
# empty config.worktree first and keeps it read-only (EROFS); the landlock backend refuses the
# start, naming PROTECT_GIT_CONFIG. Control: with PROTECT_GIT_CONFIG=false the write succeeds.
. "$(dirname "$0")/../lib/tap.sh"

git init -q "$T_PROJECT"
git -C "$T_PROJECT" config core.repositoryformatversion 1
git -C "$T_PROJECT" config extensions.worktreeConfig true
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }
plant='open(p, "w").write("[core]\n\tfsmonitor = touch pwned\n")'

if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
        plan 2
        out=$(inside -- true); rc=$?
        check "landlock backend: the start is refused, naming PROTECT_GIT_CONFIG" "125:1" \
                "$rc:$(grep -c "^cordon: PROTECT_GIT_CONFIG cannot be enforced by the landlock backend" <<<"$out")"
        check "control: with PROTECT_GIT_CONFIG=false config.worktree can be written" "OK:32" \
                "$(PROTECT_GIT_CONFIG=false inside -- python3 -c "$TRY" "$plant" .git/config.worktree)"
        exit 0
fi

plan 4
check "the first start makes config.worktree, and says so" \
        "cordon: warning: created commondir, modules, worktrees, config.worktree in '$(realpath "$T_PROJECT")/.git' so the sandbox cannot create them" \
        "$(inside -- true)"
check "writing .git/config.worktree: EROFS" "EROFS" \
        "$(inside -- python3 -c "$TRY" "$plant" .git/config.worktree)"
check "the host's git reads no fsmonitor" "" "$(git -C "$T_PROJECT" config --get core.fsmonitor)"
check "control: with PROTECT_GIT_CONFIG=false config.worktree can be written" "OK:32" \
        "$(PROTECT_GIT_CONFIG=false inside -- python3 -c "$TRY" "$plant" .git/config.worktree)"
