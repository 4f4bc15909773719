#!/usr/bin/env bash
# `--home-access write` voided the admin's DENIED_WRITABLE_PATHS (issue 22): the whole home was
# bound writable, and a denied path inside it with it. HOME_ACCESS is harden-only now (write <
# read < tmpwrite < restricted): below the admin's mode it is put back, with a warning; and
# HOME_ACCESS=write with a denied path at, in or above the home refuses the start, in every
# layer (here the admin allows any mode, the user asks for write on the command line).
# Controls: without the baseline the same command writes the path on the host; with it, a mode
# that keeps the home read-only starts and the write fails with EROFS.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/config.sh"

plan 7
cd "$T_PROJECT" || exit 1
if host_admin_baseline >/dev/null; then
        for i in $(seq 7); do skip "this host has an admin baseline" "admin-home-write $i"; done
        exit 0
fi
cfg_reset
mkdir -p "$HOME/site-data"
target=$HOME/site-data/planted
# The sandbox's answer on stdout, cordon's lines in $T_TMP/err.
write() { "$CORDON" run --quiet --net isolated "$@" -- python3 -c "$TRY" 'open(p, "w").write("x")' \
        "$target" 2>"$T_TMP/err"; }

out=$(write --home-access write)
check "control: without an admin, --home-access write writes the path on the host" "OK:1" "$out"
rm -f "$target"

admin=$(admin_fixture admin-home-denied)
if [ -z "$admin" ]; then
        for i in $(seq 6); do skip "fixtures not owned by root (run the suite as root)" "admin rule $i"; done
        exit 0
fi
export CORDON_ADMIN_CONF=$admin
# The admin's HOME_ACCESS=read is only raised, never lowered: write is put back to read.
check "HOME_ACCESS=write from the environment is put back to the admin's read" read \
        "$(HOME_ACCESS=write cfg_value HOME_ACCESS)"
out=$(write --home-access write); rc=$?
check "--home-access write: the sandbox cannot write the denied path" "0:EROFS" "$rc:$out"
case $(cat "$T_TMP/err") in
*"weakened admin-enforced HOME_ACCESS=read"*"to write (from --home-access)"*) ok "... with a warning line" ;;
*) not_ok "... with a warning line" "$(cat "$T_TMP/err")" ;;
esac
check "... nothing reached the host" absent "$([ -e "$target" ] && echo present || echo absent)"

# An admin that denies the path but leaves HOME_ACCESS to the user (the case of the issue): the
# user's --home-access write refuses the start rather than making the denied path writable.
out=$(CORDON_ADMIN_CONF=$(admin_fixture admin-denied-home-only) write --home-access write); rc=$?
err=$(cat "$T_TMP/err")
if [ $rc = 125 ] && [ -z "$out" ] &&
        [[ $err == *"HOME_ACCESS=write (from --home-access)"*"DENIED_WRITABLE_PATHS entry '$HOME/site-data'"* ]]; then
        ok "HOME_ACCESS=write with a denied path in the home refuses the start"
else
        not_ok "HOME_ACCESS=write with a denied path in the home refuses the start" "rc=$rc" "$out" "$err"
fi
check "... nothing reached the host" absent "$([ -e "$target" ] && echo present || echo absent)"
