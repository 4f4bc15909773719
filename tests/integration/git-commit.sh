#!/usr/bin/env bash
# Must still work: git init, add and commit in the project (identity from -c flags), and the
# repository is usable from the host afterwards. git init inside needs PROTECT_GIT_CONFIG=false
# (by default an empty .git file keeps the sandbox from making a repository, and the landlock
# backend refuses a writable one: tests/escape/git-*.sh).
. "$(dirname "$0")/../lib/tap.sh"
export PROTECT_GIT_CONFIG=false

echo "content" > "$T_PROJECT/file.txt"
id=(-c user.name="Cordon Test" -c user.email=test@example.invalid -c init.defaultBranch=main)

plan 5
run_sandboxed git "${id[@]}" init -q .
check "git init" "0:" "$rc:$out"
run_sandboxed git "${id[@]}" add file.txt
check "git add" "0:" "$rc:$out"
run_sandboxed git "${id[@]}" commit -q -m "first commit"
check "git commit" "0:" "$rc:$out"
run_sandboxed git log --format=%s
check "git log inside shows the commit" "0:first commit" "$rc:$out"
check "the host sees the commit" "Cordon Test: first commit" \
        "$(git -C "$T_PROJECT" -c safe.directory='*' log --format='%an: %s' 2>&1)"
