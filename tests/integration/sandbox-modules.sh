#!/usr/bin/env bash
# Must still work: SANDBOX_MODULES loads Lmod modules before the sandbox starts and carries the
# PATH-like variables they changed inside (the command is found on the module's PATH), nothing
# else they set; a module that does not load refuses the run naming it; without Lmod one note
# line says so and the sandbox starts. Lmod is faked by an init script named through
# CORDON_LMOD_INIT (a test-only override), a fixture: an init runs on the host, so it must be
# root's in directories only root can write, the stand-in as much as the real one; one the user
# owns is refused, naming the variable and the path.
. "$(dirname "$0")/../lib/tap.sh"

export CORDON_TEST_MOD=$T_TMP/modtool
mod=$CORDON_TEST_MOD
mkdir -p "$mod/bin"
printf '#!/bin/sh\necho tool-from-module\n' >"$mod/bin/modtool"; chmod 755 "$mod/bin/modtool"
init=$T_SRC/tests/fixtures/lmod/init.sh
run() { out=$(cd "$T_PROJECT" && CORDON_LMOD_INIT="$init" "$CORDON" run --quiet \
        --net isolated --ro "$mod" "$@" 2>&1); rc=$?; }

plan 7
if [ "$(stat -c %u "$init")" != 0 ]; then
        for i in $(seq 5); do skip "the fixtures are not root's (run the suite as root)" "Lmod stand-in $i"; done
else
run -- sh -c 'command -v modtool || echo missing'
check "control: without SANDBOX_MODULES the module's tool is not on PATH" "missing" "$out"
run --set SANDBOX_MODULES=tool/1.0 -- modtool
check "SANDBOX_MODULES: the command is found on the module's PATH" "tool-from-module" "$out"
run --set SANDBOX_MODULES=tool/1.0 -- sh -c 'echo "$TOOL_ROOT $LOADEDMODULES ${MODULE_SIDE_VARIABLE-unset}"'
check "the module's *_ROOT and LOADEDMODULES are carried, nothing else" "$mod tool/1.0 unset" "$out"
run --set SANDBOX_MODULES=tool/1.0 --set SANDBOX_MODULES=nosuch/2 -- true
if [ $rc = 125 ] && [[ $out == *"SANDBOX_MODULES entry 'nosuch/2' (from --set SANDBOX_MODULES) could not be loaded"* ]]; then
        ok "a module that does not load refuses the run, naming it"
else
        not_ok "a module that does not load refuses the run, naming it" "rc=$rc" "$out"
fi
run --set 'SANDBOX_MODULES=-x' -- true
check "a module name that is an option is a usage error" "2" "$rc"
fi
# An init the user owns (as root: one given to nobody) could be a sandbox's: refused, and its
# module function never runs (it would have written the marker).
printf 'echo ran >%s/init-ran\nmodule() { :; }\n' "$T_TMP" >"$T_TMP/lmod-init.sh"
[ "$(id -u)" = 0 ] && chown nobody "$T_TMP/lmod-init.sh"
out=$(cd "$T_PROJECT" && CORDON_LMOD_INIT="$T_TMP/lmod-init.sh" "$CORDON" run --quiet --net isolated \
        --set SANDBOX_MODULES=tool/1.0 -- true 2>&1); rc=$?
if [ $rc = 125 ] && [[ $out == *"CORDON_LMOD_INIT: program '$T_TMP/lmod-init.sh'"*"not root"* ]] &&
        [ ! -e "$T_TMP/init-ran" ]; then
        ok "an Lmod init the user owns is refused, naming the variable and the path"
else
        not_ok "an Lmod init the user owns is refused, naming the variable and the path" "rc=$rc" "$out"
fi
if [ -e /etc/profile.d/lmod.sh ] || [ -e /usr/share/lmod/lmod/init/sh ] || [ -e /app/lmod/lmod/init/sh ]; then
        skip "Lmod is installed here" "without Lmod: one note line, and the sandbox starts"
else
        out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --set SANDBOX_MODULES=tool/1.0 \
                -- echo started 2>&1); rc=$?
        check "without Lmod: one note line, and the sandbox starts" "0:1:started" \
                "$rc:$(printf '%s\n' "$out" | grep -c 'SANDBOX_MODULES (tool/1.0, from --set SANDBOX_MODULES): Lmod was not found'):$(printf '%s\n' "$out" | tail -1)"
fi
