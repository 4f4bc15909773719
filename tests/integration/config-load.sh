#!/usr/bin/env bash
# sandbox.conf as `cordon run` reads it (src/lib/config/): values of a user file, of agent-
# sandbox's files (copied from its documentation, read unchanged) and of a conf.d file guarded
# by _PROJECT_DIR take effect inside the sandbox; the environment wins over conf.d; a config's
# side effects (a file written, a socket, a background job, traps, set -e, IFS) stay in the
# child that reads it; a config that runs forever or prints megabytes, a syntax error and a
# value a variable refuses stop cordon with status 125 and a message naming the file; a file
# CORDON_CONF names must exist; the test-only CORDON_ADMIN_CONF gives an admin layer.
# shellcheck disable=SC1091,SC2016,SC2028 # resolved at run time; the quoted scripts expand inside
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/config.sh"

cd "$T_PROJECT" || exit 1
conf=$HOME/.config/cordon
legacy=$HOME/.config/agent-sandbox
reset() { rm -rf "$conf" "$legacy"; mkdir -p "$conf"; }
# run ARGS...: stdout+stderr of `cordon run --quiet --net isolated ARGS` in $out, status in $rc.
run() { out=$("$CORDON" run --quiet --net isolated "$@" 2>&1); rc=$?; }

plan 14

# ---- values take effect ----
reset
mkdir -p "$T_TMP/data" && echo hello >"$T_TMP/data/file"
printf 'READONLY_MOUNTS+=("%s")\nSANDBOX_ENV+=("FROM_CONF=yes")\n' "$T_TMP/data" >"$conf/sandbox.conf"
run -- sh -c 'cat "$1/file"; echo "FROM_CONF=$FROM_CONF"' sh "$T_TMP/data"
check "a user file's READONLY_MOUNTS and SANDBOX_ENV take effect" \
        "0 hello FROM_CONF=yes" "$rc $(printf '%s' "$out" | tr '\n' ' ' | sed 's/ $//')"

# agent-sandbox's own files, unchanged: the READONLY_MOUNTS+=(...) form with comments, the
# conf.d `[[ "$_PROJECT_DIR" == ... ]] || return 0` idiom, the PATH idiom of SANDBOX_ENV.
reset
rm -rf "$conf"
mkdir -p "$legacy/conf.d"
cat >"$legacy/sandbox.conf" <<EOF
READONLY_MOUNTS+=(
"$T_TMP/data" # just your user dir — recommended
)
EOF
cat >"$legacy/conf.d/genomics.conf" <<'EOF'
# conf.d/genomics.conf
[[ "$_PROJECT_DIR" == /fh/fast/mylab/genomics/* ]] || return 0
SANDBOX_ENV+=("NOT_THIS_PROJECT=1")
EOF
cat >"$legacy/conf.d/here.conf" <<EOF
[[ "\$_PROJECT_DIR" == "$T_PROJECT" ]] || return 0
SANDBOX_ENV+=(
"PATH=/opt/project/bin:\${PATH}"
"MY_PIPELINE_REF=/ref/hg38"
)
EOF
run -- sh -c 'cat "$1/file"; echo "$MY_PIPELINE_REF ${NOT_THIS_PROJECT:-unset}"; case :$PATH: in *:/opt/project/bin:?*) echo path-ok;; esac' sh "$T_TMP/data"
check "agent-sandbox's files are read unchanged, conf.d guarded by _PROJECT_DIR" \
        "0 hello /ref/hg38 unset path-ok" "$rc $(printf '%s' "$out" | grep -v '^cordon: warning' | tr '\n' ' ' | sed 's/ $//')"
case $out in
*"reading agent-sandbox's configuration"*) ok "one line says agent-sandbox's files are read" ;;
*) not_ok "one line says agent-sandbox's files are read" "$out" ;;
esac
rm -rf "$legacy"

# ---- the environment wins over conf.d ----
reset
mkdir -p "$conf/conf.d"
echo 'HOME_ACCESS=read' >"$conf/conf.d/10.conf"
out=$(HOME_ACCESS=restricted "$CORDON" config explain HOME_ACCESS 2>&1)
case $out in
*"HOME_ACCESS=restricted"*"environment variable HOME_ACCESS"*) ok "the environment wins over conf.d" ;;
*) not_ok "the environment wins over conf.d" "$out" ;;
esac

# ---- side effects stay in the child ----
reset
cat >"$conf/sandbox.conf" <<EOF
echo escaped >"$T_TMP/written-by-config" 2>/dev/null
(exec 3<>/dev/tcp/127.0.0.1/22) 2>/dev/null && echo "socket opened"
python3 -c 'import socket; socket.socket().connect(("127.0.0.1", 22))' 2>/dev/null && echo "python socket"
sleep 1000 &
trap 'echo trap ran' EXIT
set -e
IFS=
SANDBOX_ENV+=("SIDE=done")
EOF
start=$(date +%s)
run -- sh -c 'echo "SIDE=$SIDE"'
took=$(( $(date +%s) - start ))
check "a config with side effects still gives its values" "0 SIDE=done" \
        "$rc $(printf '%s' "$out" | grep -v '^cordon: warning' | tr '\n' ' ' | sed 's/ $//')"
if [ -e "$T_TMP/written-by-config" ]; then not_ok "a config cannot write a file" "$(cat "$T_TMP/written-by-config")"; else ok "a config cannot write a file"; fi
case $out in
*"socket opened"* | *"python socket"* | *"trap ran"*) not_ok "no socket, no trap reaches the host" "$out" ;;
*) ok "no socket, no trap reaches the host" ;;
esac
if [ "$took" -lt 5 ]; then ok "a background job does not hold cordon up"; else not_ok "a background job does not hold cordon up" "took ${took}s"; fi

# ---- refusals ----
reset
echo 'while :; do :; done' >"$conf/sandbox.conf"
start=$(date +%s)
run -- true
took=$(( $(date +%s) - start ))
case "$rc:$out" in
125:*"sandbox.conf"*"longer than 5 s"*) ok "a config that runs forever is stopped and refused (${took}s)" ;;
*) not_ok "a config that runs forever is stopped and refused" "rc=$rc took=${took}s" "$out" ;;
esac

echo "head -c 3000000 /dev/zero | tr '\\0' x" >"$conf/sandbox.conf"
run -- true
case "$rc:$out" in
125:*"sandbox.conf"*"printed more than"*) ok "a config that prints megabytes is refused" ;;
*) not_ok "a config that prints megabytes is refused" "rc=$rc" "$out" ;;
esac

printf 'HOME_ACCESS=read\nif then\n' >"$conf/sandbox.conf"
run -- true
case "$rc:$out" in
125:*"sandbox.conf: line 2: syntax error"*) ok "a syntax error is refused naming file and line" ;;
*) not_ok "a syntax error is refused naming file and line" "rc=$rc" "$out" ;;
esac

printf '# a comment\nHOME_ACCESS=sideways\n' >"$conf/sandbox.conf"
run -- true
case "$rc:$out" in
125:*"sandbox.conf:2: HOME_ACCESS 'sideways'"*) ok "a refused value names file:line and the variable" ;;
*) not_ok "a refused value names file:line and the variable" "rc=$rc" "$out" ;;
esac

reset
out=$(CORDON_CONF="$T_TMP/missing.conf" "$CORDON" run --quiet --net isolated -- true 2>&1); rc=$?
case "$rc:$out" in
125:*"CORDON_CONF=$T_TMP/missing.conf: no such file"*) ok "a missing CORDON_CONF file is an error" ;;
*) not_ok "a missing CORDON_CONF file is an error" "rc=$rc" "$out" ;;
esac

# ---- the test-only admin override ----
if host_admin_baseline >/dev/null; then
        skip "$(host_admin_baseline) exists on this machine" "CORDON_ADMIN_CONF gives an admin layer"
else
        mkdir -p "$T_TMP/admin" && chmod 755 "$T_TMP/admin"
        printf 'SANDBOX_ENV+=("ADMIN_SET=1")\n' >"$T_TMP/admin/sandbox.conf"
        chmod 644 "$T_TMP/admin/sandbox.conf"
        out=$(CORDON_ADMIN_CONF="$T_TMP/admin/sandbox.conf" "$CORDON" run --quiet --net isolated -- sh -c 'echo "ADMIN_SET=$ADMIN_SET"' 2>&1); rc=$?
        if [ "$(id -u)" = 0 ]; then
                check "CORDON_ADMIN_CONF gives an admin layer" "0 ADMIN_SET=1" \
                        "$rc $(printf '%s' "$out" | grep -v '^cordon: warning')"
        else
                # The override is held to the baseline's rules: a file (and directory) the
                # user owns is no admin baseline (tests/escape/config-admin*.sh use root-owned
                # fixtures for the unprivileged runs).
                case "$rc:$out" in
                125:*"not root"*) ok "CORDON_ADMIN_CONF: a file the user owns is refused" ;;
                *) not_ok "CORDON_ADMIN_CONF: a file the user owns is refused" "rc=$rc" "$out" ;;
                esac
        fi
fi
