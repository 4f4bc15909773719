#!/usr/bin/env bash
# Must still work: sandbox.conf's layers (user file < conf.d in lexical order < environment)
# reach a real sandbox, with origins; agent-sandbox's own files are read unchanged; bad files
# refuse to start naming the file and line.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/config.sh"

plan 29
cd "$T_PROJECT" || exit 1
unset CORDON_ADMIN_CONF
cfg_reset
rmdir "$cfg_dir/conf.d" "$cfg_dir"

# First run: a commented default file is written, and it is not evaluated later.
"$CORDON" run --quiet --net isolated -- true >/dev/null 2>&1
check "a first run writes a commented default sandbox.conf" yes \
        "$([ -f "$cfg_dir/sandbox.conf" ] && echo yes || echo no)"
check "it holds only comments and blank lines" 0 "$(grep -cvE '^[[:space:]]*(#|$)' "$cfg_dir/sandbox.conf")"
out=$("$CORDON" run --quiet --net isolated -- echo ok 2>&1)
check "the next run says nothing about it" ok "$out"

cfg_reset
cat >"$cfg_dir/sandbox.conf" <<'CONF'
# the user's file
HOME_ACCESS=read
READONLY_MOUNTS+=("$HOME/data")
SANDBOX_ENV+=("FROM_USER=u1")
CONF
printf 'HOME_ACCESS=restricted\n' >"$cfg_dir/conf.d/10-a.conf"
printf '# b\nSANDBOX_ENV+=("FROM_CONFD=b")\nHOME_ACCESS=read\n' >"$cfg_dir/conf.d/20-b.conf"
cat >"$cfg_dir/conf.d/30-proj.conf" <<'CONF'
[[ "$_PROJECT_DIR" == "$HOME/proj" ]] || return 0
SANDBOX_ENV+=("PROJECT_MATCH=yes")
CONF
mkdir -p "$HOME/data" "$HOME/other" && echo DATA >"$HOME/data/f"

check "conf.d files are read in lexical order (20-b after 10-a)" read "$(cfg_value HOME_ACCESS)"
check "the origin is the file and line" "$cfg_dir/conf.d/20-b.conf:3" "$(cfg_origin HOME_ACCESS)"
check "the environment overrides conf.d" write "$(HOME_ACCESS=write cfg_value HOME_ACCESS)"
check "... with origin env HOME_ACCESS" "env HOME_ACCESS" "$(HOME_ACCESS=write cfg_origin HOME_ACCESS)"
check "+= appends to the built-in defaults" "/usr" "$(cfg_value READONLY_MOUNTS | grep -x /usr)"
check "the appended item has its file:line" "$cfg_dir/sandbox.conf:3" \
        "$("$CORDON" config show --json | python3 -c 'import json,sys
for i in json.load(sys.stdin)["variables"]["READONLY_MOUNTS"]["items"]:
    if i["value"].endswith("/data"): print(i["origin"])')"
out=$("$CORDON" run --quiet --net isolated -- sh -c 'echo "$FROM_USER $FROM_CONFD ${PROJECT_MATCH-no}"; cat "$HOME/data/f"' 2>&1)
check "inside: SANDBOX_ENV of both layers, the project guard matched, READONLY_MOUNTS visible" \
        "u1 b yes
DATA" "$out"
out=$(cd "$HOME/other" && "$CORDON" run --quiet --net isolated --allow-parent "$HOME" -- sh -c 'echo "${PROJECT_MATCH-no}"' 2>&1)
check "another project: the guarded conf.d file adds nothing" no "$out"
out=$("$CORDON" run --quiet --net isolated -- sh -c '{ echo x >"$HOME/data/w"; } 2>/dev/null && echo wrote || echo refused' 2>&1)
check "READONLY_MOUNTS stays read-only" refused "$out"

# Each variable's effect, from a file.
cfg_reset
mkdir -p "$T_TMP/out"
echo SECRET >"$T_PROJECT/masked.txt"
cat >"$cfg_dir/sandbox.conf" <<CONF
EXTRA_WRITABLE_PATHS+=("$T_TMP/out")
BLOCKED_FILES+=("$T_PROJECT/masked.txt")
ALLOWED_ENV_VARS+=("MY_SERVICE_TOKEN")
BLOCKED_ENV_PATTERNS+=("my_secret_*/i")
HOME_ACCESS=restricted
SANDBOX_QUIET=true
CONF
out=$(MY_SERVICE_TOKEN=t1 OTHER_TOKEN=t2 MY_SECRET_X=s1 my_secret_y=s2 MY_PUBLIC=p \
        "$CORDON" run --net isolated -- sh -c 'echo "${MY_SERVICE_TOKEN-} ${OTHER_TOKEN-gone} ${MY_SECRET_X-gone} ${my_secret_y-gone} $MY_PUBLIC"' 2>&1)
check "ALLOWED_ENV_VARS passes a *_TOKEN; the /i pattern takes both spellings; others stay; SANDBOX_QUIET: no banner" \
        "t1 gone gone gone p" "$out"
out=$("$CORDON" run --net isolated -- sh -c "echo made >'$T_TMP/out/f' && cat '$T_PROJECT/masked.txt' 2>/dev/null; echo end" 2>&1)
check "EXTRA_WRITABLE_PATHS is writable, BLOCKED_FILES gives nothing away (empty; landlock: refused)" "end" "$out"
check "... and the write reached the host" made "$(cat "$T_TMP/out/f" 2>/dev/null)"
out=$("$CORDON" run --net isolated -- python3 -c "$TRY" 'open(os.environ["HOME"] + "/new", "w")' 2>&1)
check "HOME_ACCESS=restricted: an unlisted home write fails" "$(on_backend EROFS EACCES)" "$out"
echo 'SANDBOX_BACKEND=bwrap' >"$cfg_dir/conf.d/10-backend.conf"
want=ns; [ "${SANDBOX_BACKEND:-}" = landlock ] && want=landlock
check "SANDBOX_BACKEND=bwrap in a file means ns (the environment still wins)" "$want" "$(cfg_value SANDBOX_BACKEND)"
env -u SANDBOX_BACKEND "$CORDON" config show --json >/dev/null 2>&1
check "... and is accepted" 0 "$?"
check "... as ns when the environment says nothing" ns "$(env -u SANDBOX_BACKEND "$CORDON" config show --json | python3 -c "$CFG_PY" SANDBOX_BACKEND value)"
rm "$cfg_dir/conf.d/10-backend.conf"

# Bad files refuse to start, naming file and line.
cfg_reset
printf 'HOME_ACCESS=read\nif then\n' >"$cfg_dir/sandbox.conf"
out=$("$CORDON" run --quiet --net isolated -- echo RAN 2>&1); rc=$?
case "$rc:$out" in
125:*"$cfg_dir/sandbox.conf"*2*) case $out in *RAN*) not_ok "a syntax error refuses to start" "$out" ;; *) ok "a syntax error in sandbox.conf refuses to start, naming file and line" ;; esac ;;
*) not_ok "a syntax error in sandbox.conf refuses to start, naming file and line" "status $rc" "$out" ;;
esac
cfg_reset
printf '\n\nHOME_ACCESS=bogus\n' >"$cfg_dir/conf.d/50-bad.conf"
out=$("$CORDON" run --quiet --net isolated -- echo RAN 2>&1); rc=$?
case "$rc:$out" in
125:*"50-bad.conf:3"*HOME_ACCESS*) ok "a bad value in conf.d refuses to start, naming file:line and the variable" ;;
*) not_ok "a bad value in conf.d refuses to start, naming file:line and the variable" "status $rc" "$out" ;;
esac
cfg_reset
printf 'HOME_ACCESS=read\nNOT_A_CORDON_VARIABLE=1\n' >"$cfg_dir/sandbox.conf"
out=$("$CORDON" run --quiet --net isolated -- echo RAN 2>&1); rc=$?
case "$rc:$out" in
0:*"$cfg_dir/sandbox.conf:2"*NOT_A_CORDON_VARIABLE*RAN) ok "an unknown variable is one warning naming file:line, and the run goes on" ;;
*) not_ok "an unknown variable is one warning naming file:line, and the run goes on" "status $rc" "$out" ;;
esac

# CORDON_CONF / SANDBOX_CONF name another user file; a missing one is an error.
cfg_reset
printf 'HOME_ACCESS=read\n' >"$T_TMP/alt.conf"
check "CORDON_CONF names the user file" read "$(CORDON_CONF=$T_TMP/alt.conf cfg_value HOME_ACCESS)"
check "SANDBOX_CONF too (agent-sandbox's name)" read "$(SANDBOX_CONF=$T_TMP/alt.conf cfg_value HOME_ACCESS)"
out=$(CORDON_CONF=$T_TMP/missing.conf "$CORDON" run --quiet --net isolated -- echo RAN 2>&1); rc=$?
case "$rc:$out" in
125:*"$T_TMP/missing.conf"*) ok "CORDON_CONF naming a missing file refuses to start" ;;
*) not_ok "CORDON_CONF naming a missing file refuses to start" "status $rc" "$out" ;;
esac

# agent-sandbox's own files, unchanged (the spec's examples), when cordon has none.
cfg_reset
rm -rf "$cfg_dir"
as=$HOME/.config/agent-sandbox
mkdir -p "$as/conf.d" "$HOME/shared/reference" "$HOME/scratch-out"
cat >"$as/sandbox.conf" <<'CONF'
# Add a read-only data directory
READONLY_MOUNTS+=("$HOME/shared/reference")
HOME_READONLY+=(
    ".config/gh"   # GitHub CLI config
    ".config/nvim" # neovim config
)
ALLOWED_ENV_VARS+=(
    "GITHUB_TOKEN" # for `gh` CLI inside the sandbox
)
NETWORK_BLOCKLIST+=("*.untrusted-vendor.com" "10.0.0.0/8:25" "203.0.113.5")
CONF
cat >"$as/conf.d/genomics.conf" <<'CONF'
# conf.d/genomics.conf
[[ "$_PROJECT_DIR" == "$HOME"/proj* ]] || return 0
EXTRA_WRITABLE_PATHS+=(
    "$HOME/scratch-out"
)
SANDBOX_ENV+=(
    "MY_PIPELINE_REF=$HOME/shared/reference/hg38"
)
CONF
warn=$("$CORDON" config show 2>&1 >/dev/null)
case $warn in
*agent-sandbox*) ok "one line says agent-sandbox's files are used" ;;
*) not_ok "one line says agent-sandbox's files are used" "stderr: $warn" ;;
esac
check "its NETWORK_BLOCKLIST is read" "*.untrusted-vendor.com
10.0.0.0/8:25
203.0.113.5" "$(cfg_value NETWORK_BLOCKLIST)"
out=$("$CORDON" run --quiet --net isolated -- sh -c "echo \$MY_PIPELINE_REF; echo w >'$HOME/scratch-out/f' && echo wrote" 2>/dev/null)
check "its conf.d file reaches the sandbox" "$HOME/shared/reference/hg38
wrote" "$out"
check "GITHUB_TOKEN passes as its ALLOWED_ENV_VARS says" gh1 \
        "$(GITHUB_TOKEN=gh1 "$CORDON" run --quiet --net isolated -- sh -c 'echo $GITHUB_TOKEN' 2>/dev/null)"
rm -rf "$as"
cfg_reset
