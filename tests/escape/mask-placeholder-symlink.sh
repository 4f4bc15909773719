#!/usr/bin/env bash
# Attack: a first sandbox plants project/conf -> a host directory outside the project; a later run
# with --mask project/conf/key.pem must not create its placeholder (or parents) through that link.
# Control: without the planted link the placeholder is created inside the project.
. "$(dirname "$0")/../lib/tap.sh"

mask_run() { (cd "$T_PROJECT" && "$CORDON" run --quiet --mask "$T_PROJECT/$1" -- true 2>/dev/null); }

target=$HOME/.config/autostart
mkdir -p "$target" "$T_PROJECT/real-conf"
run_sandboxed ln -s "$target" conf
planted=$rc
run_sandboxed ln -s "$HOME/.config" deep

plan 6
check "the sandbox could plant the links in its project" "0:0" "$planted:$rc"
mask_run real-conf/key.pem; rc=$?
check "control: a placeholder in a real project directory is created" "0:file" \
        "$rc:$([ -f "$T_PROJECT/real-conf/key.pem" ] && echo file)"
mask_run conf/key.pem; rc=$?
check "no placeholder was created in the link's target" "" "$(ls -A "$target")"
check "the run is refused (125) instead of masking a path that leads out of the project" "125" "$rc"
mask_run deep/newdir/key.pem; rc=$?
check "no directory was created through the link" "absent" \
        "$([ -e "$HOME/.config/newdir" ] && echo present || echo absent)"
check "... and that run is refused too" "125" "$rc"
