#!/usr/bin/env bash
# Must still work: SANDBOX_MODULES loads Lmod modules before the sandbox starts and carries the
# PATH-like variables they changed inside (the command is found on the module's PATH), nothing
# else they set; a module that does not load refuses the run naming it; without Lmod one note
# line says so and the sandbox starts. Lmod is faked by an init script named through
# CORDON_LMOD_INIT (a test-only override).
. "$(dirname "$0")/../lib/tap.sh"

mod=$T_TMP/modtool
mkdir -p "$mod/bin"
printf '#!/bin/sh\necho tool-from-module\n' >"$mod/bin/modtool"; chmod 755 "$mod/bin/modtool"
cat >"$T_TMP/lmod-init.sh" <<INIT
module() {
        [ "\$1" = load ] || return 1
        case "\$2" in
        tool/1.0) export PATH="$mod/bin:\$PATH" TOOL_ROOT="$mod" LOADEDMODULES=tool/1.0
                  export MODULE_SIDE_VARIABLE=not-carried ;;
        *) echo "Lmod has detected the following error: unknown module \$2" >&2; return 1 ;;
        esac
}
INIT
run() { out=$(cd "$T_PROJECT" && CORDON_LMOD_INIT="$T_TMP/lmod-init.sh" "$CORDON" run --quiet \
        --net isolated --ro "$mod" "$@" 2>&1); rc=$?; }

plan 6
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
if [ -e /etc/profile.d/lmod.sh ] || [ -e /usr/share/lmod/lmod/init/sh ] || [ -e /app/lmod/lmod/init/sh ]; then
        skip "Lmod is installed here" "without Lmod: one note line, and the sandbox starts"
else
        out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --set SANDBOX_MODULES=tool/1.0 \
                -- echo started 2>&1); rc=$?
        check "without Lmod: one note line, and the sandbox starts" "0:1:started" \
                "$rc:$(printf '%s\n' "$out" | grep -c 'SANDBOX_MODULES (tool/1.0, from --set SANDBOX_MODULES): Lmod was not found'):$(printf '%s\n' "$out" | tail -1)"
fi
