#!/usr/bin/env bash
# Attack: below the project, make a repository of the sandbox's own whose configuration runs a
# command (core.fsmonitor), and reach the host's git with it: a gitlink in the project's index
# (the host's `git status` at the root enters the submodule), a shell prompt's `git status` in
# the directory, a bare repository, a hook in a nested repository that was there before, an
# `exec` line in the project's own rebase todo. Expected: once the sandbox has ended, each is
# moved aside (NAME.cordon-untrusted) with a line naming it and why, so the host's git runs
# nothing; repositories git itself made (init, clone, remote add) and nested repositories the
# sandbox left alone stay. Control: with PROTECT_GIT_CONFIG=false the host's git runs the
# planted command. Both backends: the landlock backend in a project that is no repository.
. "$(dirname "$0")/../lib/tap.sh"

G='-c user.name=t -c user.email=t@example.com'
real=$(realpath "$T_PROJECT")
# The planted command also runs inside, at the sandbox's own git commands: their marks go.
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); rm -f "$real"/*.pwned; }
# plant DIR: a repository in DIR whose config runs `touch DIR.pwned` at the host's git status
plant="plant() { git init -q \"\$1\" && git -C \"\$1\" config core.fsmonitor \"touch $real/\$1.pwned; false\" && git -C \"\$1\" $G commit -q --allow-empty -m x; }"
pwned() { [ -e "$real/$1.pwned" ] && echo yes || echo no; }
moved() { grep -c "^cordon: moved '$real/$1' to '$real/$1.cordon-untrusted'" <<<"$2"; }

plan 18
git init -q "$T_PROJECT"
git -C "$T_PROJECT" $G commit -q --allow-empty -m init
# A nested repository of the user's own, with a hook, from before the run.
git init -q "$T_PROJECT/mine"
printf '#!/bin/sh\nexit 0\n' >"$T_PROJECT/mine/.git/hooks/pre-commit"
chmod +x "$T_PROJECT/mine/.git/hooks/pre-commit"
git init -q "$T_PROJECT/old"
sleep 0.1                 # the repositories above are older than the next run
inside -- true >/dev/null # the first start makes the stand-ins, with a warning line

out=$(inside -- sh -c "$plant; plant sub && git update-index --add --cacheinfo 160000,\$(git -C sub rev-parse HEAD),sub &&
        plant prompt && git init -q --bare b.git && git -C b.git config core.sshCommand evil &&
        printf '#!/bin/sh\ntouch $real/old.pwned\n' > old/.git/hooks/post-checkout &&
        git init -q clean && git -C clean remote add origin https://example.com/r.git && git clone -q clean clone 2>/dev/null &&
        git -C mine status --short")
check "each repository the sandbox made or changed is moved aside, with a line" "1:1:1:1" \
        "$(moved sub/.git "$out"):$(moved prompt/.git "$out"):$(moved b.git "$out"):$(moved old/.git "$out")"
check "the line says why" "1" "$(grep -c "sub/.git.cordon-untrusted': its config: line [0-9]*: key 'core.fsmonitor' is not one a sandbox may set" <<<"$out")"
git -C "$T_PROJECT" status >/dev/null 2>&1
check "the host's git status at the root (a gitlink to sub) runs nothing" "no" "$(pwned sub)"
(cd "$T_PROJECT/prompt" && git status >/dev/null 2>&1)
check "a prompt's git status in a directory the sandbox made runs nothing" "no" "$(pwned prompt)"
check "the hook planted in a nested repository is gone from where git looks" "no" \
        "$([ -e "$T_PROJECT/old/.git/hooks/post-checkout" ] && echo yes || echo no)"
check "repositories git made as git does stay, and the user's own is untouched" "yes:yes:yes:0" \
        "$([ -d "$T_PROJECT/clean/.git" ] && echo yes):$([ -d "$T_PROJECT/clone/.git" ] && echo yes):$([ -x "$T_PROJECT/mine/.git/hooks/pre-commit" ] && echo yes):$(grep -c "mine" <<<"$out")"

# A rebase the host would continue, with a command in its todo.
out=$(inside -- sh -c "mkdir -p .git/rebase-merge && printf 'exec touch $real/rebase.pwned\n' > .git/rebase-merge/git-rebase-todo")
check "a rebase todo with a command is moved aside" "1" "$(moved .git/rebase-merge "$out")"
check "the host's git sees no rebase in progress" "no" \
        "$([ -e "$T_PROJECT/.git/rebase-merge" ] && echo yes || echo no)"
out=$(inside -- sh -c "echo nothing")
check "a run that makes nothing moves nothing" "nothing" "$out"

# A repository behind a directory made unreadable, waiting for the user to open it up.
out=$(inside -- sh -c "$plant; mkdir hid && plant hid/r && chmod 000 hid")
check "a repository in a directory made unreadable is found and moved aside" "1" "$(moved hid/r/.git "$out")"
# Deeper than the check goes: the protection asked for did not hold, so the run fails (125).
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet -- sh -c 'mkdir -p "$(printf "d/%.0s" $(seq 130))"' 2>&1; echo "rc=$?")
check "a tree too deep to check fails the run (125), with a line" "1:rc=125" \
        "$(grep -c "were not all checked (.*nested too deep to check)" <<<"$out"):$(tail -1 <<<"$out")"
rm -rf "$T_PROJECT/d"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet -- sh -c 'mkdir -p "$(printf "e/%.0s" $(seq 100))"' 2>&1; echo "rc=$?")
check "control: a tree the check covers exits as the command did" "rc=0" "$out"

out=$(PROTECT_GIT_CONFIG=false inside -- sh -c "$plant; plant ctl && git update-index --add --cacheinfo 160000,\$(git -C ctl rev-parse HEAD),ctl")
git -C "$T_PROJECT" status >/dev/null 2>&1
check "control: with PROTECT_GIT_CONFIG=false the host's git status runs the planted command" "yes" "$(pwned ctl)"

# The landlock backend (which refuses a writable repository, git-commondir.sh): in a project
# that is none, where the sandbox makes them.
mkdir "$HOME/ll"
real=$(realpath "$HOME/ll") T_PROJECT=$HOME/ll
plant="plant() { git init -q \"\$1\" && git -C \"\$1\" config core.fsmonitor \"touch $real/\$1.pwned; false\" && git -C \"\$1\" $G commit -q --allow-empty -m x; }"
export SANDBOX_BACKEND=landlock
out=$(inside -- sh -c "$plant; plant sub; git init -q --bare b.git && git -C b.git config core.sshCommand evil")
check "landlock: the repositories the sandbox made are moved aside" "1:1" "$(moved sub/.git "$out"):$(moved b.git "$out")"
(cd "$T_PROJECT/sub" && git status >/dev/null 2>&1)
check "landlock: a prompt's git status in it runs nothing" "no" "$(pwned sub)"
check "landlock: nothing is left where git looks" "no:no" \
        "$([ -e "$T_PROJECT/sub/.git" ] && echo yes || echo no):$([ -e "$T_PROJECT/b.git" ] && echo yes || echo no)"
out=$(inside -- sh -c "git init -q clean && git -C clean remote add origin https://example.com/r.git")
check "landlock: a repository git made as git does stays" "0:yes" "$(grep -c moved <<<"$out"):$([ -d "$T_PROJECT/clean/.git" ] && echo yes)"
out=$(PROTECT_GIT_CONFIG=false inside -- sh -c "$plant; plant ctl")
(cd "$T_PROJECT/ctl" && git status >/dev/null 2>&1)
check "landlock control: with PROTECT_GIT_CONFIG=false the host's git runs the planted command" "yes" "$(pwned ctl)"
