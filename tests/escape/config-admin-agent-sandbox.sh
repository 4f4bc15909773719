#!/usr/bin/env bash
# tap: split: root (as the test user it skips itself: see run-tap.sh's T_TAP_SPLIT)
# agent-sandbox's admin baseline /app/lib/agent-sandbox/sandbox.conf is a floor as cordon's own
# is: a user's ~/.config/agent-sandbox/user.conf that drops an admin BLOCKED_ENV_VARS entry,
# weakens NETWORK_FILTER_MODE or widens ALLOWED_PROJECT_PARENTS gets the admin's back (or is
# refused), for root and for an unprivileged user; a group-writable or foreign-owned file or
# directory, a symlink, or a syntax error refuses the start, naming the file. Controls: the same
# user files take effect without the admin file.
# As root only: the file must be root's, at its real path, created here and removed on exit
# (with the directories this test made; an /app that already existed is left as it was). The
# unprivileged user's checks run from the root pass, as cordon-test.
# tap: exclusive (it makes the machine's admin baseline, which every start reads)
# shellcheck disable=SC1091,SC2016 # resolved at run time; the quoted scripts expand in the sandbox
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/config.sh"

N=33
conf=/app/lib/agent-sandbox/sandbox.conf
if [ "$(id -u)" != 0 ]; then
        echo "1..0 # SKIP root makes $conf; the root pass runs cordon as cordon-test as well"
        exit 0
fi
plan $N
if existing=$(host_admin_baseline) || ! id cordon-test >/dev/null 2>&1; then
        for i in $(seq $N); do
                skip "${existing:-no user cordon-test}${existing:+ exists on this host}" "agent-sandbox admin $i"
        done
        exit 0
fi

# ---- the admin file, its directories, and their removal ----
made=()
cleanup() {
        rm -f "$conf"
        local i
        for ((i = ${#made[@]} - 1; i >= 0; i--)); do rmdir "${made[i]}" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
for d in /app /app/lib /app/lib/agent-sandbox; do
        if [ ! -e "$d" ]; then
                mkdir -m 0755 "$d" && chown root:root "$d" && made+=("$d")
        fi
done
admin_dir_ours=false
case " ${made[*]} " in *" /app/lib/agent-sandbox "*) admin_dir_ours=true ;; esac
# An /app that was already there must pass the checks for an admin file in it to count.
for d in /app /app/lib /app/lib/agent-sandbox; do
        if [ ! -d "$d" ] || [ -L "$d" ] || [ "$(stat -c %u "$d")" != 0 ] ||
                [ $((0$(stat -c %a "$d") & 022)) != 0 ]; then
                for i in $(seq $N); do
                        skip "$d is not a root-owned directory only root can write" "agent-sandbox admin $i"
                done
                exit 0
        fi
done
put_admin() { # put_admin TEXT: the admin file, root's, 0644
        printf '%s' "$1" >"$conf" && chown root:root "$conf" && chmod 0644 "$conf"
}
ADMIN='BLOCKED_ENV_VARS+=("ADMIN_AGENT_VAR")
NETWORK_FILTER_MODE=isolated
ALLOWED_PROJECT_PARENTS=("$HOME/projects")
'

# ---- the users: root (this HOME) and cordon-test (a HOME of its own) ----
uhome=$T_TMP/uhome
mkdir -p "$uhome" && chown cordon-test: "$uhome" && chmod 0755 "$uhome"
# user_files HOME: agent-sandbox's user files, the same settings in user.conf (read beside an
# admin baseline) and sandbox.conf (read without one).
user_files() {
        local d=$1/.config/agent-sandbox
        rm -rf "$1/.config"
        mkdir -p "$d" "$1/projects/p" "$1/other/p"
        printf '%s\n' 'BLOCKED_ENV_VARS=()' 'NETWORK_FILTER_MODE=open' \
                'ALLOWED_PROJECT_PARENTS=("$HOME/projects" "$HOME/other" "/tmp")' >"$d/user.conf"
        cp "$d/user.conf" "$d/sandbox.conf"
}
user_files "$HOME"
user_files "$uhome"
chown -R cordon-test: "$uhome"
# as_root DIR CMD...: CMD in DIR, as root; as_user DIR CMD...: the same as cordon-test.
as_root() { (cd "$1" && shift && "$@"); }
as_user() {
        local dir=$1; shift
        runuser -u cordon-test -- env -i HOME="$uhome" PATH="$PATH" LANG=C.UTF-8 USER=cordon-test \
                ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" \
                sh -c 'cd "$1" && shift && exec "$@"' sh "$dir" "$@"
}
# leak WHO HOME: the admin-blocked variable as the command inside sees it.
leak() {
        "$1" "$2/projects/p" env ADMIN_AGENT_VAR=leak "$CORDON" run --quiet -- \
                sh -c 'echo "v=${ADMIN_AGENT_VAR-unset}"' 2>/dev/null
}
# netdevs WHO HOME: the network interfaces inside, as the user file leaves the mode.
netdevs() {
        "$1" "$2/projects/p" "$CORDON" run --quiet -- \
                awk 'NR > 2 { sub(":", "", $1); printf "%s ", $1 }' /proc/net/dev 2>/dev/null
}
# starts WHO HOME DIR: the exit status of a run in HOME/DIR/p.
starts() { "$1" "$2/$3/p" "$CORDON" run --quiet -- true >/dev/null 2>&1; echo $?; }
value() { # value WHO HOME NAME
        "$1" "$2/projects/p" "$CORDON" config show --json 2>/dev/null | python3 -c "$CFG_PY" "$3" value
}
host_devs=$(awk 'NR > 2 { sub(":", "", $1); printf "%s ", $1 }' /proc/net/dev)

# ---- controls: no admin file, the user's settings hold ----
check "control (root): without the admin file the emptied BLOCKED_ENV_VARS lets the variable in" \
        v=leak "$(leak as_root "$HOME")"
check "control (root): NETWORK_FILTER_MODE=open holds" open "$(value as_root "$HOME" NETWORK_FILTER_MODE)"
if [ "$host_devs" = "lo " ]; then
        ok "control (root): the open network shows the host's interfaces # SKIP the host has only lo"
else
        check "control (root): the open network shows the host's interfaces" "$host_devs" \
                "$(netdevs as_root "$HOME")"
fi
check "control (root): a project below the user's extra parent starts" 0 "$(starts as_root "$HOME" other)"
check "control (cordon-test): the variable gets in" v=leak "$(leak as_user "$uhome")"
check "control (cordon-test): NETWORK_FILTER_MODE=open holds" open \
        "$(value as_user "$uhome" NETWORK_FILTER_MODE)"
check "control (cordon-test): a project below the user's extra parent starts" 0 \
        "$(starts as_user "$uhome" other)"

# ---- with the admin file ----
put_admin "$ADMIN"
files=$(as_root "$HOME/projects/p" "$CORDON" config show --json 2>/dev/null |
        python3 -c 'import json, sys; print(" ".join(f["layer"] + "=" + f["path"] for f in json.load(sys.stdin)["files"]))')
check "the admin file is read, then the user's user.conf in ~/.config/agent-sandbox" \
        "admin=$conf user=$HOME/.config/agent-sandbox/user.conf" "$files"
check "root: the admin's BLOCKED_ENV_VARS entry is restored: the variable stays out" \
        v=unset "$(leak as_root "$HOME")"
warn=$(as_root "$HOME/projects/p" "$CORDON" config show 2>&1 >/dev/null)
check_like "one warning line names the restored entry and the admin file's line" \
        "*"$'\n'"cordon: warning: removed admin-enforced BLOCKED_ENV_VARS entry 'ADMIN_AGENT_VAR' (from $conf:1): restored"$'\n'"*" \
        $'\n'"$warn"$'\n'
check "root: NETWORK_FILTER_MODE=open is restored to the admin's isolated" isolated \
        "$(value as_root "$HOME" NETWORK_FILTER_MODE)"
check "root: inside, only the loopback interface" "lo " "$(netdevs as_root "$HOME")"
out=$(as_root "$HOME/projects/p" "$CORDON" run --dry-run --net open -- true 2>/dev/null)
check "root: --net open on the command line gets the admin's isolated too" "network: isolated" \
        "$(printf '%s\n' "$out" | grep '^network:' | cut -d' ' -f1-2)"
check_like "the dry run lists the admin file among the files read" "*  admin   $conf"$'\n'"*" "$out"
check "root: ALLOWED_PROJECT_PARENTS narrows to the admin's" "$HOME/projects" \
        "$(value as_root "$HOME" ALLOWED_PROJECT_PARENTS)"
check "root: a project below the user's extra parent is refused" 125 "$(starts as_root "$HOME" other)"
check "root: a project below the admin's parent starts" 0 "$(starts as_root "$HOME" projects)"
out=$(as_root "$HOME/projects/p" "$CORDON" config explain NETWORK_FILTER_MODE 2>&1)
check_like "config explain names the admin file" "*admin baselines read: $conf"$'\n'"*" "$out"$'\n'
check "cordon-test: the admin's BLOCKED_ENV_VARS entry is restored" v=unset "$(leak as_user "$uhome")"
check "cordon-test: NETWORK_FILTER_MODE=open is restored to isolated" isolated \
        "$(value as_user "$uhome" NETWORK_FILTER_MODE)"
check "cordon-test: inside, only the loopback interface" "lo " "$(netdevs as_user "$uhome")"
check "cordon-test: a project below the user's extra parent is refused" 125 \
        "$(starts as_user "$uhome" other)"
check "cordon-test: a project below the admin's parent starts" 0 "$(starts as_user "$uhome" projects)"
out=$(as_root "$HOME/projects/p" env CORDON_ADMIN_CONF="$T_SRC/tests/fixtures/config/admin-enforce.conf" \
        "$CORDON" run --quiet -- true 2>&1)
check_like "CORDON_ADMIN_CONF is refused beside it" "*never replaces a real baseline*" "$out"

# ---- an admin file that is not safe, or broken, refuses the start ----
# refused WHO DESCRIPTION PATTERN: a run refuses (125), its message matching PATTERN.
refused() {
        local who=$1 what=$2 pattern=$3 out rc home=$HOME
        [ "$who" = as_user ] && home=$uhome
        out=$("$who" "$home/projects/p" "$CORDON" run --quiet -- echo RAN 2>&1); rc=$?
        check_like "$what" "125:$pattern" "$rc:$out"
}
chmod 0664 "$conf"
refused as_root "root: a group-writable admin file refuses the start" "*$conf is writable by group*"
refused as_user "cordon-test: a group-writable admin file refuses the start" "*$conf is writable by group*"
chmod 0644 "$conf" && chown nobody "$conf"
refused as_root "an admin file another user owns refuses the start" "*$conf belongs to uid*"
chown root "$conf"
if $admin_dir_ours; then
        chmod 0775 /app/lib/agent-sandbox
        refused as_root "a group-writable directory above it refuses the start" \
                "*$conf: directory /app/lib/agent-sandbox is writable by group*"
        chmod 0755 /app/lib/agent-sandbox && chown nobody /app/lib/agent-sandbox
        refused as_user "cordon-test: a directory above it that another user owns refuses the start" \
                "*$conf: directory /app/lib/agent-sandbox belongs to uid*"
        chown root /app/lib/agent-sandbox
else
        ok "a group-writable directory above it refuses the start # SKIP /app existed before the test"
        ok "cordon-test: a directory above it that another user owns refuses the start # SKIP /app existed before the test"
fi
mv "$conf" "$conf.real" && ln -s "$conf.real" "$conf"
refused as_root "an admin file that is a symlink refuses the start" "*$conf*symlink*"
rm -f "$conf" && mv "$conf.real" "$conf"
put_admin 'NETWORK_FILTER_MODE=isolated
BLOCKED_ENV_VARS+=(
'
refused as_root "root: a syntax error refuses the start, naming the file and line" "*$conf: line *syntax*"
refused as_user "cordon-test: a syntax error refuses the start, naming the file" "*$conf*syntax*"

# ---- removed: the user's settings hold again ----
rm -f "$conf"
check "after the admin file is gone, the user's removal holds again" v=leak "$(leak as_user "$uhome")"
