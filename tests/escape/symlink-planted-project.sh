#!/usr/bin/env bash
# Attack: a first sandbox plants links in its project, sub -> $HOME and other -> another project;
# a later run names them: --rw sub (all of $HOME writable), --ro through sub, -p other, and a
# capability-policy root through sub. Each is refused with 125 and a message naming the link.
# Control: with sub a real directory, --rw sub works.
. "$(dirname "$0")/../lib/tap.sh"

echo "original" > "$HOME/.somefile"
mkdir -p "$HOME/other-project"
run_sandboxed sh -c "ln -s '$HOME' sub && ln -s '$HOME/other-project' other"
planted=$rc

# refused DESCRIPTION OPTIONS...: 125, the command never ran, the link is named.
refused() {
        local desc=$1 err rc; shift
        err=$(cd "$T_PROJECT" && "$CORDON" run --quiet "$@" -- \
                sh -c 'echo COMMAND-RAN; echo changed > "$HOME/.somefile"' 2>&1); rc=$?
        case "$rc:$err" in
        *COMMAND-RAN*) not_ok "$desc" "rc=$rc" "output: $err" ;;
        "125:"*"symlink '$T_PROJECT/"*) ok "$desc" ;;
        *) not_ok "$desc" "rc=$rc" "output: $err" ;;
        esac
}

policy=$T_TMP/policy.json
printf '{"workspace_roots": ["%s"], "process_sandbox": {"read_roots": ["%s/sub/other-project"]}}\n' \
        "$T_PROJECT" "$T_PROJECT" > "$policy"

plan 7
check "the first sandbox could plant the links in its project" "0" "$planted"
refused "--rw sub (sub -> \$HOME): 125" --rw sub
check "... and \$HOME/.somefile was not rewritten" "original" "$(cat "$HOME/.somefile")"
refused "--ro of a path through sub: 125" --ro "$T_PROJECT/sub/other-project"
refused "--project-dir other (-> another project): 125" --project-dir other
err=$(cd "$T_PROJECT" && "$CORDON" run --quiet --policy "$policy" -- true 2>&1); rc=$?
case "$rc:$err" in
"125:"*"'$T_PROJECT/sub/other-project'"*"'$HOME/other-project'"*) ok "policy root through sub: 125, both paths named" ;;
*) not_ok "policy root through sub: 125, both paths named" "rc=$rc" "output: $err" ;;
esac
rm "$T_PROJECT/sub"
mkdir "$T_PROJECT/sub"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --rw sub -- sh -c 'echo ok > sub/f && cat sub/f' 2>&1)
check "control: --rw sub of a real directory works" "ok" "$out"
