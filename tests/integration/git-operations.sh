#!/usr/bin/env bash
# Must still work with git's directory kept by PROTECT_GIT_CONFIG (the default; only the
# allow list of .git's entries writable): every git operation an agent uses, in an existing
# repository, and the host sees what they did.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "the landlock backend refuses a writable repository (tests/escape/git-*.sh)"

export GIT_AUTHOR_NAME="Cordon Test" GIT_AUTHOR_EMAIL=test@example.invalid
export GIT_COMMITTER_NAME="Cordon Test" GIT_COMMITTER_EMAIL=test@example.invalid
export GIT_EDITOR=true GIT_SEQUENCE_EDITOR=true
git init -q -b main "$T_PROJECT"
echo one > "$T_PROJECT/file.txt"
git -C "$T_PROJECT" add file.txt
git -C "$T_PROJECT" commit -q -m first
git clone -q --bare "$T_PROJECT" "$T_PROJECT/upstream.git"
git -C "$T_PROJECT/upstream.git" branch -q feature
# A linked worktree and a submodule made on the host: their git directories lie in .git's
# read-only worktrees/ and modules/, and are opened again.
git -C "$T_PROJECT" worktree add -q "$T_PROJECT/wt"
git -C "$T_PROJECT" -c protocol.file.allow=always submodule add -q ./upstream.git sub 2>/dev/null
git -C "$T_PROJECT" commit -q -m "add sub"

# git OPERATION...: runs it inside; "rc:output" in $res.
g() { res=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated -- git "$@" 2>&1); res="$?:$res"; }
sh_in() { res=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated -- sh -c "$1" 2>&1); res="$?:$res"; }

plan 19
sh_in 'echo two >> file.txt && git commit -q -am second'
real=$(realpath "$T_PROJECT")
check "commit -a (the stand-ins are made once, with a warning)" \
        "0:cordon: warning: created commondir, config.worktree in '$real/.git' so the sandbox cannot create them
cordon: warning: created commondir, modules, worktrees, config.worktree in '$real/.git/modules/sub' so the sandbox cannot create them
cordon: warning: created config.worktree in '$real/.git/worktrees/wt' so the sandbox cannot create them" \
        "$res"
g branch topic
check "branch" "0:" "$res"
g checkout -q topic
check "checkout" "0:" "$res"
sh_in 'echo t > t.txt && git add t.txt && git commit -q -m topic && git checkout -q main'
check "add, commit on a branch, checkout back" "0:" "$res"
sh_in 'echo m > m.txt && git add m.txt && git commit -q -m main-side'
check "commit on main" "0:" "$res"
g merge -q --no-edit topic
check "merge (a merge commit)" "0:" "$res"
sh_in 'git checkout -q -b work topic && echo w > w.txt && git add w.txt && git commit -q -m w && git rebase -q main'
check "rebase" "0:" "$res"
g rebase -q -i HEAD~1
check "rebase -i" "0:" "$res"
sh_in 'echo s >> file.txt && git stash -q && git stash pop -q && git commit -q -am stashed'
check "stash and stash pop" "0:" "$res"
g tag v1
check "tag" "0:" "$res"
g tag -a -m annotated v2
check "annotated tag" "0:" "$res"
g fetch -q ./upstream.git feature:refs/remotes/up/feature
check "fetch from a local repository" "0:" "$res"
sh_in 'git checkout -q main && git cherry-pick work >/dev/null && git reset -q --hard HEAD~1'
check "cherry-pick and reset --hard" "0:" "$res"
g commit -q --amend -m amended
check "commit --amend" "0:" "$res"
sh_in 'cd wt && echo x > x.txt && git add x.txt && git commit -q -m in-worktree'
check "commit in a linked worktree" "0:" "$res"
sh_in 'cd sub && echo y > y.txt && git add y.txt && git commit -q -m in-submodule'
check "commit in a submodule" "0:" "$res"
g pack-refs --all
check "pack-refs (packed-refs replaced by rename)" "0:" "$res"
check "the host sees every branch and tag" "main topic up/feature v1 v2 work wt" \
        "$(echo $(git -C "$T_PROJECT" for-each-ref --format='%(refname:lstrip=2)' refs/heads refs/remotes refs/tags | sort))"
check "the host's git status is clean and log shows the work" "amended" \
        "$(git -C "$T_PROJECT" status --porcelain --untracked-files=no --ignore-submodules)$(git -C "$T_PROJECT" log -1 --format=%s)"
