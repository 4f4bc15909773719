#!/usr/bin/env bash
# Must still work: each sandbox.conf variable set through `cordon run --set NAME=VALUE` changes
# what the sandbox does: the agent-sandbox variables inside (SANDBOX_ACTIVE, SANDBOX_BACKEND,
# SANDBOX_PROJECT_DIR), SANDBOX_BACKEND=firejail/bwrap, PRIVATE_TMP, FILTER_PASSWD, BIND_DEV_PTS's
# note, the Slurm variables held with a note, SANDBOX_QUIET, SANDBOX_ENV, ALLOWED_ENV_VARS,
# BLOCKED_ENV_VARS, BLOCKED_ENV_PATTERNS, READONLY_MOUNTS, EXTRA_WRITABLE_PATHS, EXTRA_BLOCKED_PATHS,
# HOME_READONLY, HOME_WRITABLE, HOME_SEEDED_FILES, DEVICES globs and DEVICES_BLACKLIST.
. "$(dirname "$0")/../lib/tap.sh"

run() { out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated "$@" 2>&1); rc=$?; }
err() { out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated "$@" 2>&1 >/dev/null); rc=$?; }
ll=$(on_backend no yes)

plan 28
run -- sh -c 'echo "$SANDBOX_ACTIVE $SANDBOX_BACKEND $SANDBOX_PROJECT_DIR"'
check "SANDBOX_ACTIVE, SANDBOX_BACKEND and SANDBOX_PROJECT_DIR inside" \
        "1 $(on_backend ns landlock) $(realpath "$T_PROJECT")" "$out"
for b in firejail bwrap; do
        run --set "SANDBOX_BACKEND=$b" -- sh -c 'echo "$SANDBOX_BACKEND"'
        check "SANDBOX_BACKEND=$b runs the ns backend" "ns" "$out"
done

# PRIVATE_TMP: the host's /tmp is out of sight by default, shared when false.
host_tmp=$(mktemp /tmp/cordon-vars-XXXXXX); echo HOST-TMP >"$host_tmp"
run -- python3 -c "$TRY" 'open(p).read()' "$host_tmp"
check "PRIVATE_TMP (default): a host /tmp file is out of reach" "$(on_backend ENOENT EACCES)" "$out"
# (The test's home is below /tmp: sharing /tmp makes its credential directories placeholders,
# announced on stderr.)
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --set PRIVATE_TMP=false -- \
        python3 -c "$TRY" 'open(p).read()' "$host_tmp" 2>/dev/null)
check "PRIVATE_TMP=false: the host's /tmp is shared" "OK:HOST-TMP" "$out"
rm -f "$host_tmp"

# FILTER_PASSWD=false: /etc/passwd and nsswitch.conf are the host's.
run --set FILTER_PASSWD=false -- cat /etc/passwd /etc/nsswitch.conf
check "FILTER_PASSWD=false: /etc/passwd and nsswitch.conf are the host's" \
        "$(cat /etc/passwd /etc/nsswitch.conf)" "$out"
if [ "$ll" = yes ]; then
        run --set FILTER_PASSWD=true -- true
        check "FILTER_PASSWD=true asked of the landlock backend is refused" "125" "$rc"
else
        run --set FILTER_PASSWD=true -- grep '^passwd:' /etc/nsswitch.conf
        check "FILTER_PASSWD=true: nsswitch.conf uses files only" "passwd:         files" "$out"
fi

# BIND_DEV_PTS: deprecated; one note line, and on kernel >= 5.4 nothing else.
err --set BIND_DEV_PTS=true -- true
check "BIND_DEV_PTS=true: one note line" "1" "$(printf '%s\n' "$out" | grep -c 'BIND_DEV_PTS')"
check "BIND_DEV_PTS=true: the run goes on" "0" "$rc"
err -- true
check "BIND_DEV_PTS unset: no note" "0" "$(printf '%s\n' "$out" | grep -c 'BIND_DEV_PTS')"
# The shim never aborts: not with /dev/pts asked for as well and shadowed by DEVICES_BLACKLIST
# (the default has it; here it is set again, as an admin would), nor with an admin baseline
# that lists it (root only: the stand-in admin file must be root's).
err --set BIND_DEV_PTS=true --set DEVICES_BLACKLIST=/dev/pts --device /dev/pts -- true
check "BIND_DEV_PTS=true, DEVICES+=/dev/pts shadowed by DEVICES_BLACKLIST: the run goes on, one line names both" \
        "0:1" "$rc:$(printf '%s\n' "$out" | grep -c "DEVICES entry '/dev/pts' (from --device) is shadowed by DEVICES_BLACKLIST entry '/dev/pts'")"
if [ "$(id -u)" != 0 ] || [ -e /etc/cordon/sandbox.conf ]; then
        ok "BIND_DEV_PTS=true under an admin DEVICES_BLACKLIST with /dev/pts # SKIP root only, without a real admin baseline"
else
        mkdir -p "$T_TMP/admin-pts" && chmod 755 "$T_TMP/admin-pts"
        printf 'DEVICES_BLACKLIST+=(/dev/pts)\nDEVICES+=(/dev/pts)\n' >"$T_TMP/admin-pts/sandbox.conf"
        chmod 644 "$T_TMP/admin-pts/sandbox.conf"
        out=$(cd "$T_PROJECT" && CORDON_ADMIN_CONF="$T_TMP/admin-pts/sandbox.conf" "$CORDON" run \
                --quiet --net isolated --set BIND_DEV_PTS=true -- echo RAN 2>&1); rc=$?
        check "BIND_DEV_PTS=true under an admin DEVICES_BLACKLIST with /dev/pts: the run goes on" \
                "0:1" "$rc:$(printf '%s\n' "$out" | grep -cx RAN)"
fi

# The Slurm integration's variables: accepted without a note (the chaperon enforces them).
err --set SLURM_SCOPE=user --set CHAPERON_LOG_LEVEL=debug --set CHAPERON_LOG_RETAIN_DAYS=3 -- true
check "SLURM_SCOPE=user, CHAPERON_LOG_LEVEL=debug, CHAPERON_LOG_RETAIN_DAYS=3: accepted, no note" \
        "0:0" "$rc:$(printf '%s\n' "$out" | grep -c 'not active yet')"
check "cordon doctor names no held variable" "0" \
        "$(SLURM_SCOPE=user "$CORDON" doctor 2>/dev/null | grep -c 'accepted, not yet active')"
err --set SLURM_SCOPE=everyone -- true
check "SLURM_SCOPE=everyone is a usage error" "2" "$rc"

# SANDBOX_QUIET=false shows the banner, true (what --quiet sets) does not.
out=$(cd "$T_PROJECT" && "$CORDON" run --net isolated --set SANDBOX_QUIET=false -- true 2>&1 >/dev/null)
check "SANDBOX_QUIET=false: the banner is printed" "1" "$([ -n "$out" ] && echo 1 || echo 0)"
out=$(cd "$T_PROJECT" && "$CORDON" run --net isolated --set SANDBOX_QUIET=true -- true 2>&1 >/dev/null)
check "SANDBOX_QUIET=true: nothing is printed" "" "$out"

# The environment.
run --set SANDBOX_ENV=VARS_TEST=from-set -- sh -c 'echo "$VARS_TEST"'
check "SANDBOX_ENV sets a variable" "from-set" "$out"
out=$(cd "$T_PROJECT" && GITHUB_TOKEN=gh-visible "$CORDON" run --quiet --net isolated \
        --set ALLOWED_ENV_VARS=GITHUB_TOKEN -- sh -c 'echo "${GITHUB_TOKEN-unset}"' 2>&1)
check "ALLOWED_ENV_VARS passes a blocked name through" "gh-visible" "$out"
out=$(cd "$T_PROJECT" && VARS_PLAIN=plain-s3cret "$CORDON" run --quiet --net isolated \
        --set BLOCKED_ENV_VARS=VARS_PLAIN -- sh -c 'echo "${VARS_PLAIN-unset}"' 2>&1)
check "BLOCKED_ENV_VARS removes a name" "unset" "$out"
out=$(cd "$T_PROJECT" && vars_lower=low-s3cret "$CORDON" run --quiet --net isolated \
        --set 'BLOCKED_ENV_PATTERNS=VARS_*/i' -- sh -c 'echo "${vars_lower-unset}"' 2>&1)
check "BLOCKED_ENV_PATTERNS with /i removes a name in any case" "unset" "$out"

# Mounts.
data=$T_TMP/vars-data out_dir=$T_TMP/vars-out secret=$T_TMP/vars-data/secret
mkdir -p "$data" "$out_dir" "$secret"; echo DATA >"$data/f"; echo SECRET >"$secret/s"
run --set "READONLY_MOUNTS=$data" -- python3 -c "$TRY" 'open(p).read()' "$data/f"
check "READONLY_MOUNTS: readable" "OK:DATA" "$out"
run --set "READONLY_MOUNTS=$data" -- python3 -c "$TRY" 'open(p, "a")' "$data/f"
check "READONLY_MOUNTS: not writable" "$(on_backend EROFS EACCES)" "$out"
run --set "EXTRA_WRITABLE_PATHS=$out_dir" -- python3 -c "$TRY" 'open(p, "w").write("w")' "$out_dir/o"
check "EXTRA_WRITABLE_PATHS: writable, and the write reaches the host" "OK:1:w" "$out:$(cat "$out_dir/o" 2>&1)"
run --set "READONLY_MOUNTS=$data" --set "EXTRA_BLOCKED_PATHS=$secret" -- \
        python3 -c "$TRY" 'open(p).read()' "$secret/s"
check "EXTRA_BLOCKED_PATHS: hidden inside a visible mount" "$(on_backend ENOENT EACCES)" "$out"

# Home lists (relative to $HOME).
echo RC >"$HOME/.varsrc"; mkdir -p "$HOME/.varstool"; echo SEED >"$HOME/.varsseed"
run --set HOME_READONLY=.varsrc -- python3 -c "$TRY" 'open(p).read()' "$HOME/.varsrc"
check "HOME_READONLY: the host file is visible" "OK:RC" "$out"
run --set HOME_WRITABLE=.varstool -- python3 -c "$TRY" 'open(p, "w").write("t")' "$HOME/.varstool/t"
check "HOME_WRITABLE: writes persist on the host" "OK:1:t" "$out:$(cat "$HOME/.varstool/t" 2>&1)"
if [ "$ll" = yes ]; then
        ok "HOME_SEEDED_FILES: # SKIP a writable copy needs the ns backend's tmpfs home"
else
        run --set HOME_SEEDED_FILES=.varsseed -- sh -c 'cat ~/.varsseed; echo agent >~/.varsseed; cat ~/.varsseed'
        check "HOME_SEEDED_FILES: a writable copy; the host file is unchanged" \
                "SEED agent SEED" "$(echo $out) $(cat "$HOME/.varsseed")"
fi
