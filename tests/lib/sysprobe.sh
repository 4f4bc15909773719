# Helpers of the tests/escape/seccomp-*.sh files. Source it after tap.sh. They copy
# tests/helpers/sysprobe ($SYSPROBE, set by tests/run-tap.sh) into the project and run it inside
# cordon (one system call, harmless arguments, prints OK or the errno name). The control runs
# with --profile unrestricted: no Landlock and no seccomp, the namespaces stay. Every check runs
# twice: with the default backend, and with --backend landlock where that backend runs.

# sysprobe_in [CORDON-ARGS...] -- NAME [--userns]: what sysprobe prints inside `cordon run`.
sysprobe_in() {
        local args=()
        while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
        shift
        local out notes
        out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated "${set_args[@]}" "${args[@]}" -- ./sysprobe "$@" 2>&1)
        # The landlock backend's line for a refused unix socket (the socket probe's AF_UNIX)
        # is counted in $T_TMP/unix-notes, for the checks that expect it, not compared here.
        take_unix_note
        echo "$notes" >"$T_TMP/unix-notes"
        printf '%s\n' "$out"
}

# expect DESCRIPTION WANT [CORDON-ARGS...] -- NAME [--userns]: one check in the current backend
# set. WANT may list alternatives: "EPERM|ENOSYS".
expect() {
        local desc="$1$set_label" want=$2 got
        shift 2
        if [ -n "$set_skip" ]; then
                skip "$set_skip" "$desc"
                return
        fi
        got=$(sysprobe_in "$@")
        case "|$want|" in
        *"|$got|"*) ok "$desc" ;;
        *) not_ok "$desc" "expected: $want" "actual:   $got" ;;
        esac
}

# denied NAME WANT CONTROL [--userns]: inside, the filter answers WANT; with the layers off the
# same arguments reach the kernel, which answers CONTROL. Two checks.
denied() {
        local name=$1 want=$2 control=$3 what=$1
        shift 3
        [ $# -eq 0 ] || what+=" $*"
        expect "$what: $want inside" "$want" -- "$name" "$@"
        expect "control: $what with the layers off: $control" "$control" \
                --profile unrestricted -- "$name" "$@"
}

# seccomp_main N FUNCTION: plans N checks per backend set and calls FUNCTION once per set, with
# $set_args (extra cordon options), $set_name (default, landlock), $set_label and $set_skip.
# shellcheck disable=SC2034 # set_name is for the sourcing tests
seccomp_main() {
        local n=$1 fn=$2 reason="" out
        plan $((n * 2))
        if [ -z "${SYSPROBE:-}" ] || ! cp "$SYSPROBE" "$T_PROJECT/sysprobe" 2>/dev/null; then
                reason="no sysprobe to copy (SYSPROBE='${SYSPROBE:-}', set by tests/run-tap.sh)"
        fi
        set_args=() set_name=default set_label="" set_skip=$reason
        "$fn"
        if [ -z "$reason" ] &&
                ! out=$(cd "$T_PROJECT" && "$CORDON" run --backend landlock --quiet -- true 2>&1); then
                reason="the landlock backend does not run here: ${out//$'\n'/ }"
        fi
        set_args=(--backend landlock) set_name=landlock set_label=" [landlock backend]"
        set_skip=$reason
        "$fn"
}
