#!/usr/bin/env bash
# Runs the TAP shell suites (tests/integration/*.sh, tests/escape/*.sh) against a built cordon.
# As root it runs every suite twice: as root, and as an unprivileged test user (created when
# missing), because root hides most confinement mistakes. As anyone else it runs them once.
# Usage: tests/run-tap.sh BUILD_DIR [TEST_FILE...]
# Prints the TAP of each file, indented, then "tap: N passed, N failed, N skipped".
set -u
build=${1:?usage: run-tap.sh BUILD_DIR [TEST...]}; shift
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
files=("$@")
[ ${#files[@]} -eq 0 ] && files=("$src"/tests/integration/*.sh "$src"/tests/escape/*.sh)

# A world-readable copy of the binary and the suites, so the test user can run them even when
# the checkout lives in root's private home.
stage=$(mktemp -d /tmp/cordon-tap.XXXXXX)
net_env=${T_NET_ENV:-} net_up='' tun_mode='' tun_fd='' tun_saved='' pids=() small_fs=()
cleanup() {
        [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
        for m in "${small_fs[@]}"; do umount "$m" 2>/dev/null; done
        [ -n "$net_up" ] && "$src/tests/lib/testnet.sh" down "$net_up"
        if [ -n "$tun_mode" ] && flock -xn "$tun_fd" && [ -s "$tun_saved" ]; then
                chmod "$(cat "$tun_saved")" /dev/net/tun && rm -f "$tun_saved"
        fi
        rm -rf "$stage"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
chmod 755 "$stage"
cp "$build/src/cli/cordon" "$stage/cordon"
cp "$build/src/serve/cordon-serve" "$stage/cordon-serve"
cp "$build/src/serve/cordon-serve-session" "$stage/cordon-serve-session"
cp "$build/src/serve/cordon-session" "$stage/cordon-session"
cp "$build/src/slurm/cordon-slurm-stub" "$stage/cordon-slurm-stub"
cp "$build/src/slurm/cordon-chaperon" "$stage/cordon-chaperon"
cp "$build/tests/helpers/sysprobe" "$stage/sysprobe"
cp "$build/tests/helpers/proxy-harness" "$stage/proxy-harness"
cp "$build/tests/helpers/session-probe" "$stage/session-probe"
cp "$build/tests/helpers/confine-self" "$stage/confine-self"
# The SPANK plugin, where it was built (Slurm's headers installed).
[ -f "$build/src/slurm/spank/cordon_spank.so" ] && cp "$build/src/slurm/spank/cordon_spank.so" "$stage/cordon_spank.so"
# A sanitized build (its programs link a sanitizer's runtime): what cannot run in one says so.
sanitized=
ldd "$build/src/cli/cordon" 2>/dev/null | grep -qE 'lib(a|ub)san' && sanitized=1
cp -r "$src/tests" "$stage/tests"
[ -d "$src/man" ] && cp -r "$src/man" "$stage/man"
[ -d "$src/include" ] && cp -r "$src/include" "$stage/include"
[ -d "$src/examples" ] && cp -r "$src/examples" "$stage/examples"
[ -d "$src/data" ] && cp -r "$src/data" "$stage/data"
[ -d "$src/scripts" ] && cp -r "$src/scripts" "$stage/scripts"
# The build installed as a package would install it (headers, libcordon.so, libcordon.pc, the
# man pages), for tests that build against it as an outside program does
# (tests/integration/examples-pkgconfig.sh); the log says why when it failed.
meson install -C "$build" --no-rebuild --quiet --destdir "$stage/install" >"$stage/install.log" 2>&1 ||
        echo "meson install failed with status $?" >>"$stage/install.log"
chmod -R a+rX "$stage"

users=("$(id -un)")
# The unprivileged user (T_TEST_USER: another one for a second run-tap.sh beside this one, so
# that no two streams of the same unprivileged user run at once).
test_user=${T_TEST_USER:-cordon-test}
# The lock that "# tap: exclusive" files take exclusively and every other run shares: this
# run's own, or (CORDON_TAP_LOCK) one shared with other run-tap.sh runs beside it.
run_lock=${CORDON_TAP_LOCK:-$stage/run.lock}
lock_dir=$(dirname "$run_lock")
if [ "$(id -u)" -eq 0 ]; then
        "$src/tests/ensure-test-user.sh" "$test_user" || { echo "tap: cannot create the test user"; exit 1; }
        users+=("$test_user")
        # The unprivileged user's pasta (the filtered network mode) opens /dev/net/tun. Debian's
        # udev makes it 0666; these VMs have no udev and leave it 0600, so open it up for the
        # run, as a normal Debian machine has it, and restore the mode afterwards. Runs beside
        # this one need it too: each holds $tun_lock shared while it runs, the first records the
        # mode it found in $tun_saved, and only a run that ends alone (its lock made exclusive
        # without waiting) restores it; when two end at once neither does, and the next does.
        if [ -c /dev/net/tun ]; then
                tun_lock=/run/cordon-tap-tun.lock tun_saved=/run/cordon-tap-tun.mode
                exec {tun_fd}>>"$tun_lock"
                flock -s "$tun_fd"
                (
                        flock -x 9
                        if [ ! -e "$tun_saved" ] && [ "$(stat -c %a /dev/net/tun)" != 666 ]; then
                                stat -c %a /dev/net/tun >"$tun_saved"
                                chmod 0666 /dev/net/tun
                        fi
                ) 9>>"$tun_lock.x"
                tun_mode=held
        fi
        # A small file system per user for the files that fill one (T_SMALL_FS: a full disk
        # during a snapshot), mounted by root since the test user cannot: 16 MiB of tmpfs, the
        # user's own, mode 0700. A file empties it when done: the runs of a user share it.
        if grep -qs 'T_SMALL_FS' "${files[@]}"; then
                for u in "${users[@]}"; do
                        mkdir -p "$stage/small.$u"
                        if mount -t tmpfs -o "size=16m,mode=0700,uid=$(id -u "$u"),gid=$(id -g "$u")" \
                                tmpfs "$stage/small.$u"; then
                                small_fs+=("$stage/small.$u")
                        else
                                echo "# tap: cannot mount the small file system for $u"
                        fi
                done
        fi
        # The test internet (tests/lib/testnet.sh) for the files that use it (tests/lib/net.sh):
        # up once before the runs, down on exit; its services also exit on their own once this
        # script is gone. Without it those files skip (or fail under CORDON_TESTS_MUST_RUN=1).
        if grep -qs 'lib/net\.sh' "${files[@]}"; then
                if net_up=$("$src/tests/lib/testnet.sh" up --owner $$); then
                        net_env=$net_up
                else
                        echo "# tap: the test internet is not up; the network tests cannot run"
                        net_up=
                fi
        fi
fi

# Every integration test (what must keep working) runs again under the landlock backend; a test
# about namespace-only behaviour skips itself there with ns_only (tests/lib/tap.sh).
runs=()
for f in "${files[@]}"; do runs+=("ns:$f"); done
for f in "${files[@]}"; do
        case $f in *tests/integration/*) runs+=("landlock:$f") ;; esac
done

# landlock_tmpdirs USER: the landlock backend's private TMPDIRs of USER in /tmp, sorted.
landlock_tmpdirs() {
        find /tmp -maxdepth 1 -name 'cordon-??????' -user "$1" 2>/dev/null | sort
}

# run_stream USER OUT [OFFSET]: every run as USER, starting OFFSET runs into the list (and
# wrapping around), its report in OUT, its counts ("PASS FAIL SKIPPED") in OUT.counts and its
# times in OUT.times.
run_stream() {
        local user=$1 out=$2 offset=${3:-0} i run backend f rel tmp label t0 output status ms
        local planned p s n pass=0 fail=0 skipped=0 envs lock before left
        : >"$out"; : >"$out.times"; : >"$out.left"; : >"$out.ran"
        for ((i = 0; i < ${#runs[@]}; i++)); do
                run=${runs[$(((i + offset) % ${#runs[@]}))]}
                backend=${run%%:*} f=${run#*:}
                [ -f "$f" ] || continue
                rel=${f#"$src"/}
                tmp=$(mktemp -d /tmp/cordon-t.XXXXXX)
                chmod 755 "$tmp"
                mkdir -p "$tmp/home/proj"
                [ "$user" = "$(id -un)" ] || chown -R "$user:" "$tmp"
                envs=(CORDON="$stage/cordon" CORDON_SERVE="$stage/cordon-serve" CORDON_SERVE_SESSION="$stage/cordon-serve-session" T_TMP="$tmp" HOME="$tmp/home" T_PROJECT="$tmp/home/proj"
                      T_SRC="$stage" T_INSTALL="$stage/install" SYSPROBE="$stage/sysprobe" PROXY_HARNESS="$stage/proxy-harness" SESSION_PROBE="$stage/session-probe" CONFINE_SELF="$stage/confine-self" CORDON_SPANK="$([ -f "$stage/cordon_spank.so" ] && echo "$stage/cordon_spank.so")" CORDON_TESTS_MUST_RUN="${CORDON_TESTS_MUST_RUN:-0}" T_SANITIZED="$sanitized"
                      T_NET_ENV="$net_env" T_USER="$test_user" AGENT_SANDBOX_GIT="${AGENT_SANDBOX_GIT:-}"
                      T_SMALL_FS="$(mountpoint -q "$stage/small.$user" 2>/dev/null && echo "$stage/small.$user")"
                      PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin LANG=C.UTF-8 USER="$user"
                      ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}")
                label="as $user"
                if [ "$backend" = landlock ]; then
                        envs+=(SANDBOX_BACKEND=landlock)
                        label="as $user, backend landlock"
                fi
                # A file that changes what every start on the machine reads (an admin baseline
                # at its real path) says "# tap: exclusive": it runs while no other does.
                lock=-s
                grep -q '^# tap: exclusive' "$f" && lock=-x
                # The same file never runs twice at once as root (runs beside this one may
                # reach it in another stream): taken before the run lock, never while holding it.
                file_lock=$lock_dir/file.$(printf '%s' "$rel" | tr '/' '_').$([ "$user" = root ] && echo root || echo user).lock
                before=$(landlock_tmpdirs "$user")
                t0=$(date +%s%N)
                if [ "$user" = "$(id -un)" ]; then
                        output=$(cd "$tmp" && flock "$file_lock" flock "$lock" "$run_lock" env -i "${envs[@]}" timeout 300 bash "$stage/$rel" 2>&1 </dev/null)
                else
                        output=$(cd "$tmp" && flock "$file_lock" flock "$lock" "$run_lock" runuser -u "$user" -- env -i "${envs[@]}" timeout 300 bash "$stage/$rel" 2>&1 </dev/null)
                fi
                status=$?
                ms=$((($(date +%s%N) - t0) / 1000000))
                echo "$ms $rel ($label)" >>"$out.times"
                {
                        echo "# $rel ($label) $((ms / 1000)).$((ms % 1000 / 100)) s"
                        printf '%s\n' "$output" | sed 's/^/    /'
                } >>"$out"
                planned=$(printf '%s\n' "$output" | sed -n 's/^1\.\.\([0-9]*\).*/\1/p' | head -1)
                p=$(printf '%s\n' "$output" | grep -cE '^ok [0-9]+' )
                s=$(printf '%s\n' "$output" | grep -cE '^ok [0-9]+.*# SKIP')
                n=$(printf '%s\n' "$output" | grep -cE '^not ok [0-9]+')
                pass=$((pass + p - s)); skipped=$((skipped + s)); fail=$((fail + n))
                # "1..0 # SKIP reason": the whole file does not apply (ns_only under landlock).
                if printf '%s\n' "$output" | grep -qE '^1\.\.0 # SKIP'; then
                        skipped=$((skipped + 1))
                else
                        echo "$rel" >>"$out.ran"
                fi
                if [ -z "$planned" ] || [ $((p + n)) -ne "$planned" ] || [ $status -ne 0 ]; then
                        echo "not ok - $rel ($label): ran $((p + n)) of ${planned:-?} planned tests, exit status $status" >>"$out"
                        fail=$((fail + 1))
                fi
                # A landlock TMPDIR of this user's that came with this run and is still there
                # (this user's stream runs one file at a time): named, not yet counted as a
                # failure (issue 25's note: a rare leak not yet found).
                left=$(comm -13 <(printf '%s\n' "$before") <(landlock_tmpdirs "$user") | grep . |
                        paste -sd' ')
                if [ -n "$left" ]; then
                        echo "# left behind by this run: $left" >>"$out"
                        echo "$rel ($label): $left" >>"$out.left"
                fi
                rm -rf "$tmp" 2>/dev/null || true
        done
        echo "$pass $fail $skipped" >"$out.counts"
}

# As root the two users' streams run side by side (T_SERIAL=1: one after the other): the runs
# wait on sandboxes starting and stopping far more than they compute, and what one user's
# tests look at (their own processes, TMPDIRs, quotas, keyrings) the other's cannot touch; a
# file marked "# tap: exclusive" holds the other stream off while it runs. The second stream
# starts halfway down the list, so the same file seldom runs twice at once.
#
# T_TAP_SPLIT=1 (tests/run-all.sh sets it for the sanitizer build) shares the runs out instead:
# each (backend, file) runs once, as one of the users, and an integration file's two backends
# go to different users, so every file still runs as root and as the unprivileged user, and
# under both backends, but not in every combination. That pass looks for memory errors in the
# code paths, which the full matrix of the build before it has already checked for confinement.
# A file that runs for one of the users only (the other's run skips it whole) says which:
# "# tap: split: root" or "# tap: split: user" gives all its runs to that one; a file that still
# ran nowhere is a failure (see the end).
all_runs=("${runs[@]}")
split=0
[ "${T_TAP_SPLIT:-0}" = 1 ] && [ ${#users[@]} -ge 2 ] && split=1
# runs_of I: user I's share of all_runs under T_TAP_SPLIT (all of them otherwise)
runs_of() {
        local i=$1 k=0 f u=${#users[@]} ns_to ll_to
        runs=()
        if [ $split = 0 ]; then
                runs=("${all_runs[@]}")
                return
        fi
        for f in "${files[@]}"; do
                ns_to=$((k % u)) ll_to=$(((k + 1) % u))
                case $(sed -n 's/^# tap: split: \(root\|user\)\( .*\)\?$/\1/p' "$f" | head -1) in
                root) ns_to=0 ll_to=0 ;;
                user) ns_to=1 ll_to=1 ;;
                esac
                [ $ns_to -eq "$i" ] && runs+=("ns:$f")
                case $f in
                *tests/integration/*) [ $ll_to -eq "$i" ] && runs+=("landlock:$f") ;;
                esac
                k=$((k + 1))
        done
}
# start_streams TAG FUNCTION: a stream per user, of the runs FUNCTION I puts in $runs for it
# (runs_of, runs_again), its report in $stage/stream.TAG.I; waited for.
start_streams() {
        local tag=$1 runs_for=$2 i offset
        pids=()
        for i in "${!users[@]}"; do
                "$runs_for" "$i"
                [ ${#runs[@]} -gt 0 ] || continue
                streams+=("$tag.$i")
                # T_TAP_SHIFT (quarters of the list) moves a second run-tap.sh's streams between ours.
                offset=$(((i * ${#runs[@]} / ${#users[@]} + ${T_TAP_SHIFT:-0} * ${#runs[@]} / 4) % ${#runs[@]}))
                if [ "${T_SERIAL:-0}" = 1 ]; then
                        run_stream "${users[$i]}" "$stage/stream.$tag.$i" "$offset"
                else
                        run_stream "${users[$i]}" "$stage/stream.$tag.$i" "$offset" &
                        pids+=($!)
                fi
        done
        [ ${#pids[@]} -gt 0 ] && wait "${pids[@]}"
        pids=()
}
streams=()
start_streams main runs_of
# Under T_TAP_SPLIT, a file each of whose runs skipped itself whole (it runs for one user only,
# and got the other) ran nowhere: its runs go again, each to the users that did not have it.
again=()
if [ $split = 1 ]; then
        for f in "${files[@]}"; do
                rel=${f#"$src"/}
                cat "$stage"/stream.*.ran 2>/dev/null | grep -qxF -- "$rel" || again+=("$f")
        done
fi
# runs_again I: the runs of the files in $again that user I did not have
runs_again() {
        local i=$1 r f mine
        runs_of "$i"
        mine=$(printf '%s\n' "${runs[@]}")
        runs=()
        for r in "${all_runs[@]}"; do
                f=${r#*:}
                printf '%s\n' "${again[@]}" | grep -qxF -- "$f" || continue
                grep -qxF -- "$r" <<<"$mine" || runs+=("$r")
        done
}
if [ ${#again[@]} -gt 0 ]; then
        echo "# ran for no user (each of its runs skipped it), so its runs go again to the other users:"
        printf '#   %s\n' "${again[@]#"$src"/}"
        start_streams again runs_again
fi
pass=0 fail=0 skipped=0
for t in "${streams[@]}"; do
        cat "$stage/stream.$t"
        if read -r p n s <"$stage/stream.$t.counts" 2>/dev/null; then
                pass=$((pass + p)); fail=$((fail + n)); skipped=$((skipped + s))
        else
                echo "not ok - the runs as ${users[${t##*.}]} ($t) did not finish"
                fail=$((fail + 1))
        fi
done
# What runs left behind (see run_stream), together at the end.
if cat "$stage"/stream.*.left 2>/dev/null | grep -q .; then
        echo "# landlock TMPDIRs left behind:"
        cat "$stage"/stream.*.left | sed 's/^/#   /'
fi
# Where the time went: the ten slowest runs.
echo "# slowest:"
cat "$stage"/stream.*.times | sort -rn | head -10 |
        while read -r ms what; do echo "#   $((ms / 1000)).$((ms % 1000 / 100)) s $what"; done
echo "tap: $pass passed, $fail failed, $skipped skipped"
[ $fail -eq 0 ]
