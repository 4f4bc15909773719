#!/usr/bin/env bash
# Attack: a sandbox that can write the home (HOME_ACCESS=write, or --rw ~/.local/state) tampers
# with the chaperon's state, which the chaperon reads back on the host: its job registry
# (jobs.tsv decides which jobs SLURM_SCOPE lets a later sandbox see and cancel), its spooled
# job scripts (a link planted where the next one is written); or with the session daemon's store
# beside it: plants a snapshot (its record and archive, which the daemon lists as genuine and a
# later session restores), removes another session's holder record, writes into another
# session's root. Expected: ~/.local/state/cordon/{chaperon,sessions,snapshots} are read-only
# inside (EROFS under the ns backend's bind, EACCES under Landlock's), made first (empty, 0700)
# where missing so they cannot be created, and nothing reaches the host; the same under
# $XDG_STATE_HOME, where the chaperon then keeps it. A writable path that would be the
# store's own directories (--rw of a session's directory) refuses the start.
# Controls: the rest of ~/.local/state stays writable in the same run shape, and a session's
# root in the store still starts and writes (its own trees only).
# Under both backends, each named (escape files run once).
. "$(dirname "$0")/../lib/tap.sh"

state=$HOME/.local/state
run() { (cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --backend "$be" "$@" 2>/dev/null); }

plan 34
for be in ns landlock; do
        want=$([ "$be" = ns ] && echo EROFS || echo EACCES)
        mkdir -p "$state/cordon/chaperon" "$state/other-tool" "$state/cordon/snapshots" \
                "$state/cordon/sessions/a/root" "$state/cordon/sessions/b/root"
        printf '1\tsession\tproject\n' >"$state/cordon/chaperon/jobs.tsv"
        echo '{}' >"$state/cordon/sessions/b/record.json"
        for how in "--home-access write" "--rw $state"; do
                # shellcheck disable=SC2086 # two words on purpose
                check "$be, $how: appending to the chaperon's job registry: $want" "$want" \
                        "$(run $how -- python3 -c "$TRY" 'open(p, "a").write("2\tmine\tx\n")' \
                                "$state/cordon/chaperon/jobs.tsv")"
                # shellcheck disable=SC2086
                check "$be, $how: planting a link among its spooled scripts: $want" "$want" \
                        "$(run $how -- python3 -c "$TRY" 'os.symlink("/etc/passwd", p)' \
                                "$state/cordon/chaperon/next.job")"
                # shellcheck disable=SC2086
                check "$be, $how: planting a snapshot record in the session store: $want" "$want" \
                        "$(run $how -- python3 -c "$TRY" 'open(p, "w").write("{}")' \
                                "$state/cordon/snapshots/0123456789abcdef0123456789abcdef.json")"
                # shellcheck disable=SC2086
                check "$be, $how: removing a session's holder record: $want" "$want" \
                        "$(run $how -- python3 -c "$TRY" 'os.unlink(p)' "$state/cordon/sessions/b/record.json")"
                # shellcheck disable=SC2086
                check "$be, $how: control: the rest of ~/.local/state is writable" "OK:2" \
                        "$(run $how -- python3 -c "$TRY" 'open(p, "w").write("ok")' "$state/other-tool/x")"
        done
        check "$be: nothing reached the host" "1	session	project|absent|{}|" \
                "$(cat "$state/cordon/chaperon/jobs.tsv")|$([ -L "$state/cordon/chaperon/next.job" ] && echo present || echo absent)|$(cat "$state/cordon/sessions/b/record.json")|$(ls -A "$state/cordon/snapshots")"

        # The session daemon's store holds each session's root, which its sandbox writes: a
        # session root there still starts, and writes, but not another session's root.
        out=$(cd "$state/cordon/sessions/a/root" && "$CORDON" run --quiet --net isolated \
                --backend "$be" --home-access write -- sh -c 'echo x >own && echo own:ok' 2>&1)
        check "$be: a session root in the daemon's store still starts and writes" "own:ok" "$out"
        out=$(cd "$state/cordon/sessions/a/root" && "$CORDON" run --quiet --net isolated \
                --backend "$be" --home-access write -- python3 -c "$TRY" 'open(p, "w").write("x")' \
                "$state/cordon/sessions/b/root/planted" 2>&1)
        check "$be: ... but not another session's root: $want" "$want|absent" \
                "$out|$([ -e "$state/cordon/sessions/b/root/planted" ] && echo present || echo absent)"
        # A session's directory itself writable (its record beside its trees): refused.
        out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --backend "$be" \
                --rw "$state/cordon/sessions/b" -- true 2>&1)
        rc=$?
        check "$be: --rw of a session's directory in the store refuses the start (exit 125, names it)" \
                "125|1" "$rc|$(grep -c "is writable inside '$(realpath "$state/cordon/sessions")'" <<<"$out")"
        rm -rf "$state/cordon/sessions" "$state/cordon/snapshots"

        # With XDG_STATE_HOME the chaperon keeps its state there: that one is kept too.
        mkdir -p "$HOME/xstate/cordon/chaperon"
        printf '1\tsession\tproject\n' >"$HOME/xstate/cordon/chaperon/jobs.tsv"
        out=$(cd "$T_PROJECT" && XDG_STATE_HOME=$HOME/xstate "$CORDON" run --quiet --net isolated \
                --backend "$be" --home-access write -- python3 -c "$TRY" \
                'open(p, "a").write("2\tmine\tx\n")' "$HOME/xstate/cordon/chaperon/jobs.tsv" 2>/dev/null)
        check "$be: XDG_STATE_HOME's chaperon registry: $want" "$want" "$out"
        rm -rf "$HOME/xstate"

        # A missing state directory is made first, so the sandbox cannot create one of its own.
        rm -rf "$state/cordon"
        out=$(run --home-access write -- python3 -c "$TRY" 'os.makedirs(p)' "$state/cordon/chaperon/x")
        check "$be: with no state directory yet: creating one inside fails ($want; made empty, 0700, outside)" \
                "$want|700|" "$out|$(stat -c %a "$state/cordon/chaperon" 2>&1)|$(ls -A "$state/cordon/chaperon" 2>&1)"
        rm -rf "$state/cordon"
        out=$(run --home-access write -- python3 -c "$TRY" 'os.makedirs(p)' "$state/cordon/snapshots/x")
        check "$be: ... nor the store's snapshots ($want; it and sessions made empty, 0700, outside)" \
                "$want|700 700|" "$out|$(stat -c %a "$state/cordon/snapshots" "$state/cordon/sessions" 2>&1 |
                        tr '\n' ' ' | sed 's/ $//')|$(ls -A "$state/cordon/snapshots" "$state/cordon/sessions" 2>&1 | grep -v ':$' | grep .)"
        rm -rf "$state/cordon" "$state/other-tool"
done
