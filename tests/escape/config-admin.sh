#!/usr/bin/env bash
# An admin baseline (sandbox.conf's admin layer) is a floor the user cannot lower: not from the
# user's files, not from conf.d, not from the command line. Each rule is tried from the user's
# side with and without the baseline (the control shows the same user file does lower the value
# when there is no admin), and the effect is checked in a real sandbox where there is one.
# Malformed or unsafe admin files refuse to start. The admin files are fixtures under
# tests/fixtures/config/ given through CORDON_ADMIN_CONF (honoured only while no real
# baseline exists); they must be owned by root, which the staged suite is in CI.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/config.sh"

plan 29
cd "$T_PROJECT" || exit 1
if host_admin_baseline >/dev/null; then
        for i in $(seq 29); do skip "this host has an admin baseline" "config-admin $i"; done
        exit 0
fi
admin=$(admin_fixture admin-enforce)
parents=$(admin_fixture admin-parents)

cfg_reset
cat >"$cfg_dir/sandbox.conf" <<'CONF'
BLOCKED_FILES=()
BLOCKED_ENV_VARS=()
EXTRA_BLOCKED_PATHS=()
PRIVATE_TMP=false
FILTER_PASSWD=false
NETWORK_FILTER_MODE=open
NETWORK_FILTER_FALLBACK=open
HOME_WRITABLE+=(".config/admin-ro")
EXTRA_WRITABLE_PATHS+=("$HOME/denied/sub" "$HOME/link-to-denied" "$HOME/fine")
NETWORK_BLOCKLIST_EXCEPT+=("api.blocked.example" "fine.example")
CONF
mkdir -p "$HOME/denied/sub" "$HOME/fine" "$HOME/.config/admin-ro"
ln -sfn "$HOME/denied" "$HOME/link-to-denied"
echo TOPSECRET >"$T_PROJECT/admin-secret"
mkdir -p "$T_PROJECT/admin-hidden" && echo HIDDEN >"$T_PROJECT/admin-hidden/f"

# Controls: without a baseline the user's file lowers every one of them.
check "control: without an admin, the user's PRIVATE_TMP=false holds" false "$(cfg_value PRIVATE_TMP)"
check "control: without an admin, NETWORK_FILTER_MODE=open holds" open "$(cfg_value NETWORK_FILTER_MODE)"
check "control: without an admin, the denied path's subdirectory stays writable" \
        "$HOME/denied/sub" "$(cfg_value EXTRA_WRITABLE_PATHS | grep -x "$HOME/denied/sub")"
# The runs use a user file without the symlinked entry (a run refuses one on its own: tested
# elsewhere) and without --rw of the denied path.
run_conf=$T_TMP/run.conf
grep -v link-to-denied "$cfg_dir/sandbox.conf" >"$run_conf"
echo 'EXTRA_WRITABLE_PATHS+=("$HOME/denied/sub" "$HOME/fine")' >>"$run_conf"
out=$(CORDON_CONF=$run_conf "$CORDON" run --quiet --net isolated -- cat "$T_PROJECT/admin-secret" 2>"$T_TMP/control.err")
rc=$?
if [ "$out" = TOPSECRET ]; then
        ok "control: without an admin, the project file is readable"
else # seen once, empty, under load: what cordon said then
        not_ok "control: without an admin, the project file is readable" "expected: TOPSECRET" \
                "actual:   $out (status $rc)" "$(tail -5 "$T_TMP/control.err")"
fi

if [ -z "$admin" ]; then
        for i in $(seq 21); do skip "fixtures not owned by root (run the suite as root)" "admin rule $i"; done
else
        export CORDON_ADMIN_CONF=$admin
        check "PRIVATE_TMP=false is restored to the admin's true" true "$(cfg_value PRIVATE_TMP)"
        check "FILTER_PASSWD=false is restored to the admin's true" true "$(cfg_value FILTER_PASSWD)"
        check "NETWORK_FILTER_MODE=open is restored to the admin's proxied" proxied "$(cfg_value NETWORK_FILTER_MODE)"
        check "NETWORK_FILTER_FALLBACK=open is restored to the admin's strict" strict "$(cfg_value NETWORK_FILTER_FALLBACK)"
        check "the emptied BLOCKED_FILES gets the admin's entry back" "$HOME/proj/admin-secret" \
                "$(cfg_value BLOCKED_FILES | grep -x "$HOME/proj/admin-secret")"
        check "the emptied BLOCKED_ENV_VARS gets the admin's entry back" ADMIN_BLOCKED_VAR \
                "$(cfg_value BLOCKED_ENV_VARS | grep -x ADMIN_BLOCKED_VAR)"
        check "an admin HOME_READONLY entry cannot move to HOME_WRITABLE" "" \
                "$(cfg_value HOME_WRITABLE | grep -x .config/admin-ro)"
        check "EXTRA_WRITABLE_PATHS under DENIED_WRITABLE_PATHS is stripped" "" \
                "$(cfg_value EXTRA_WRITABLE_PATHS | grep -x "$HOME/denied/sub")"
        check "... and so is a symlink that resolves under it" "" \
                "$(cfg_value EXTRA_WRITABLE_PATHS | grep -x "$HOME/link-to-denied")"
        check "... while an entry elsewhere stays" "$HOME/fine" \
                "$(cfg_value EXTRA_WRITABLE_PATHS | grep -x "$HOME/fine")"
        check "an exception covered by the admin's blocklist is stripped" "" \
                "$(cfg_value NETWORK_BLOCKLIST_EXCEPT | grep -x api.blocked.example)"
        check "an exception the admin did not block stays" fine.example \
                "$(cfg_value NETWORK_BLOCKLIST_EXCEPT | grep -x fine.example)"
        warn=$("$CORDON" config show 2>&1 >/dev/null)
        case $warn in
        *BLOCKED_FILES*restored*) ok "one warning line names the restored BLOCKED_FILES entry" ;;
        *) not_ok "one warning line names the restored BLOCKED_FILES entry" "stderr: $warn" ;;
        esac

        # In a real sandbox.
        export CORDON_CONF=$run_conf
        out=$("$CORDON" run --quiet --net isolated -- cat "$T_PROJECT/admin-secret" 2>/dev/null)
        check "the admin's BLOCKED_FILES entry reads empty inside" "" "$out"
        out=$("$CORDON" run --quiet --net isolated -- ls -A "$T_PROJECT/admin-hidden" 2>/dev/null)
        check "the admin's EXTRA_BLOCKED_PATHS entry is empty inside" "" "$out"
        out=$(ADMIN_BLOCKED_VAR=leak "$CORDON" run --quiet --net isolated -- sh -c 'echo "v=${ADMIN_BLOCKED_VAR-unset}"' 2>/dev/null)
        check "the admin's BLOCKED_ENV_VARS entry is not passed in" v=unset "$out"
        rm -f "$HOME/denied/sub/planted"
        out=$("$CORDON" run --quiet --net isolated -- sh -c "echo x >'$HOME/denied/sub/planted'" 2>&1)
        check "nothing is written under the denied path from inside" absent \
                "$([ -e "$HOME/denied/sub/planted" ] && echo present || echo absent)"
        out=$("$CORDON" run --quiet --net isolated --rw "$HOME/denied" -- sh -c "echo x >'$HOME/denied/planted'" 2>&1)
        check "--rw on the denied path does not make it writable either" absent \
                "$([ -e "$HOME/denied/planted" ] && echo present || echo absent)"
        out=$("$CORDON" run --quiet --net open -- sh -c 'echo "${HTTP_PROXY-none}"' 2>/dev/null)
        check "--net open on the command line gets the admin's proxied" http://127.0.0.1:3128 "$out"
        unset CORDON_CONF
        echo 'NETWORK_FILTER_MODE=open' >"$cfg_dir/conf.d/50-open.conf"
        check "a conf.d file cannot lower it either" proxied "$(cfg_value NETWORK_FILTER_MODE)"
        rm -f "$cfg_dir/conf.d/50-open.conf"
        out=$("$CORDON" config explain PRIVATE_TMP 2>&1)
        case $out in
        *"$admin"*) ok "config explain names the admin file for a restored value" ;;
        *) not_ok "config explain names the admin file for a restored value" "$out" ;;
        esac
        unset CORDON_ADMIN_CONF
fi

# ALLOWED_PROJECT_PARENTS narrows only.
cfg_reset
mkdir -p "$HOME/projects/p1/work" "$HOME/projectsX/p2"
ln -sfn /tmp "$HOME/projects/escape"
if [ -z "$parents" ]; then
        for i in $(seq 4); do skip "fixtures not owned by root" "ALLOWED_PROJECT_PARENTS $i"; done
else
        export CORDON_ADMIN_CONF=$parents
        cat >"$cfg_dir/sandbox.conf" <<'CONF'
ALLOWED_PROJECT_PARENTS=("$HOME/projects/p1" "$HOME/projectsX" "/tmp" "$HOME/projects/escape")
CONF
        check "only the entry inside the admin's tree is left (/foo is not a parent of /foobar; a symlink out is refused)" \
                "$HOME/projects/p1" "$(cfg_value ALLOWED_PROJECT_PARENTS)"
        (cd "$HOME/projects/p1/work" && "$CORDON" run --quiet --net isolated -- true) >/dev/null 2>&1
        check "a project inside the narrowed list starts" 0 "$?"
        out=$(cd "$HOME/projectsX/p2" && "$CORDON" run --quiet --net isolated -- true 2>&1); rc=$?
        check "a project outside it does not" 125 "$rc"
        echo 'ALLOWED_PROJECT_PARENTS=("/tmp")' >"$cfg_dir/sandbox.conf"
        out=$(cd "$HOME/projects/p1/work" && "$CORDON" run --quiet --net isolated -- true 2>&1); rc=$?
        check "a user list with nothing inside the admin's refuses to start" 125 "$rc"
        unset CORDON_ADMIN_CONF
fi
cfg_reset
