#!/usr/bin/env bash
# A malformed or unsafe admin baseline refuses to start, naming the file: a syntax error, a
# command that fails, command substitution or a relative entry in ALLOWED_PROJECT_PARENTS, a
# scalar where an array belongs, a file not owned by root or writable by others, a
# CORDON_ADMIN_CONF that names nothing. Missing admin file: no narrowing (the control).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/config.sh"

plan 10
cd "$T_PROJECT" || exit 1
if host_admin_baseline >/dev/null; then
        for i in $(seq 10); do skip "this host has an admin baseline" "config-admin-files $i"; done
        exit 0
fi
cfg_reset

"$CORDON" run --quiet --net isolated -- true >/dev/null 2>&1
check "control: no admin file, the sandbox starts" 0 "$?"

for f in admin-syntax admin-failing admin-cmdsubst admin-relative admin-scalar; do
        fx=$(admin_fixture $f)
        if [ -z "$fx" ]; then
                skip "fixtures not owned by root (run the suite as root)" "$f refuses to start"
                continue
        fi
        out=$(CORDON_ADMIN_CONF=$fx "$CORDON" run --quiet --net isolated -- echo RAN 2>&1); rc=$?
        case "$rc:$out" in
        125:*"$fx"*) case $out in *RAN*) not_ok "$f refuses to start, naming the file" "$out" ;;
                     *) ok "$f refuses to start, naming the file" ;; esac ;;
        *) not_ok "$f refuses to start, naming the file" "status $rc" "$out" ;;
        esac
done

# Ownership: a file the user owns (as root: one chowned to nobody) is no admin baseline.
mkdir -p "$T_TMP/adm"
printf 'PRIVATE_TMP=true\n' >"$T_TMP/adm/sandbox.conf"
[ "$(id -u)" = 0 ] && chown nobody "$T_TMP/adm/sandbox.conf"
out=$(CORDON_ADMIN_CONF=$T_TMP/adm/sandbox.conf "$CORDON" run --quiet --net isolated -- echo RAN 2>&1); rc=$?
case "$rc:$out" in
125:*"$T_TMP/adm/sandbox.conf"*) ok "an admin file not owned by root refuses to start" ;;
*) not_ok "an admin file not owned by root refuses to start" "status $rc" "$out" ;;
esac
if [ "$(id -u)" = 0 ]; then
        chown root "$T_TMP/adm/sandbox.conf" && chmod 0664 "$T_TMP/adm/sandbox.conf"
        out=$(CORDON_ADMIN_CONF=$T_TMP/adm/sandbox.conf "$CORDON" run --quiet --net isolated -- echo RAN 2>&1); rc=$?
        case "$rc:$out" in
        125:*"$T_TMP/adm/sandbox.conf"*) ok "a root-owned admin file writable by its group refuses to start" ;;
        *) not_ok "a root-owned admin file writable by its group refuses to start" "status $rc" "$out" ;;
        esac
        chmod 0644 "$T_TMP/adm/sandbox.conf" && chown nobody "$T_TMP/adm"
        out=$(CORDON_ADMIN_CONF=$T_TMP/adm/sandbox.conf "$CORDON" run --quiet --net isolated -- echo RAN 2>&1); rc=$?
        case "$rc:$out" in
        125:*) ok "a root-owned admin file in a directory another user owns refuses to start" ;;
        *) not_ok "a root-owned admin file in a directory another user owns refuses to start" "status $rc" "$out" ;;
        esac
else
        ok "a root-owned admin file writable by its group refuses to start # SKIP root only (making a root-owned file)"
        ok "a root-owned admin file in a directory another user owns refuses to start # SKIP root only (making a root-owned file)"
fi
out=$(CORDON_ADMIN_CONF=$T_TMP/no-such.conf "$CORDON" run --quiet --net isolated -- echo RAN 2>&1); rc=$?
case "$rc:$out" in
125:*"$T_TMP/no-such.conf"*) ok "CORDON_ADMIN_CONF naming a missing file refuses to start" ;;
*) not_ok "CORDON_ADMIN_CONF naming a missing file refuses to start" "status $rc" "$out" ;;
esac
