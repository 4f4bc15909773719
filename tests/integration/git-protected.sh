#!/usr/bin/env bash
# Must still work with .git/config and .git/hooks read-only (the default): commit, branch,
# checkout -b, and fetch from a local bare repository, inside an existing repository.
. "$(dirname "$0")/../lib/tap.sh"

id=(-c user.name="Cordon Test" -c user.email=test@example.invalid -c init.defaultBranch=main)
git "${id[@]}" init -q "$T_PROJECT"
echo one > "$T_PROJECT/file.txt"
git -C "$T_PROJECT" "${id[@]}" add file.txt
git -C "$T_PROJECT" "${id[@]}" commit -q -m first
git "${id[@]}" clone -q --bare "$T_PROJECT" "$T_PROJECT/upstream.git"
git -C "$T_PROJECT/upstream.git" "${id[@]}" branch -q feature

if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
        plan 2
        run_sandboxed true
        check "landlock backend: the start is refused, naming PROTECT_GIT_CONFIG" "125:1" \
                "$rc:$(grep -c "^cordon: PROTECT_GIT_CONFIG cannot be enforced by the landlock backend" <<<"$out")"
        PROTECT_GIT_CONFIG=false run_sandboxed sh -c 'echo two >> file.txt && git "$@" commit -q -am second' sh "${id[@]}"
        check "landlock backend: with PROTECT_GIT_CONFIG=false git commit works" "0:" "$rc:$out"
        exit 0
fi
# The first start makes the stand-ins (with a warning line): out of the way.
(cd "$T_PROJECT" && "$CORDON" run --quiet -- true >/dev/null 2>&1)
plan 6
run_sandboxed sh -c 'echo two >> file.txt && git "$@" commit -q -am second' sh "${id[@]}"
check "git commit" "0:" "$rc:$out"
run_sandboxed git "${id[@]}" branch topic
check "git branch" "0:" "$rc:$out"
run_sandboxed git "${id[@]}" checkout -q -b work
check "git checkout -b" "0:" "$rc:$out"
run_sandboxed git "${id[@]}" fetch -q ./upstream.git feature:refs/remotes/up/feature
check "git fetch from a local bare repository" "0:" "$rc:$out"
run_sandboxed git log --format=%s -1
check "git log inside shows the commit" "0:second" "$rc:$out"
check "the host sees the branches" "main topic up/feature work" \
        "$(echo $(git -C "$T_PROJECT" -c safe.directory='*' for-each-ref --format='%(refname:lstrip=2)' refs/heads refs/remotes | sort))"
