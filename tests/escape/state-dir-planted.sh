#!/usr/bin/env bash
# Attack: a sandbox that can write the home (HOME_ACCESS=write, or --rw ~/.local/state) tampers
# with cordon's state, which cordon's programs read back on the host: the chaperon's job registry
# (jobs.tsv decides which jobs SLURM_SCOPE lets a later sandbox see and cancel), its spooled job
# scripts (a link planted where the next one is written), the session daemon's store. Expected:
# ~/.local/state/cordon is read-only inside (EROFS under the ns backend's bind, EACCES under
# Landlock's), made first (empty, 0700) where missing so it cannot be created, and nothing
# reaches the host. Control: the rest of ~/.local/state stays writable in the same run shape.
# Under both backends, each named (escape files run once).
. "$(dirname "$0")/../lib/tap.sh"

state=$HOME/.local/state
run() { (cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --backend "$be" "$@" 2>/dev/null); }

plan 16
for be in ns landlock; do
        want=$([ "$be" = ns ] && echo EROFS || echo EACCES)
        mkdir -p "$state/cordon/chaperon" "$state/other-tool"
        printf '1\tsession\tproject\n' >"$state/cordon/chaperon/jobs.tsv"
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
                check "$be, $how: control: the rest of ~/.local/state is writable" "OK:2" \
                        "$(run $how -- python3 -c "$TRY" 'open(p, "w").write("ok")' "$state/other-tool/x")"
        done
        check "$be: nothing reached the host" "1	session	project|absent" \
                "$(cat "$state/cordon/chaperon/jobs.tsv")|$([ -L "$state/cordon/chaperon/next.job" ] && echo present || echo absent)"

        # A missing state directory is made first, so the sandbox cannot create one of its own.
        rm -rf "$state/cordon"
        out=$(run --home-access write -- python3 -c "$TRY" 'os.makedirs(p)' "$state/cordon/chaperon")
        check "$be: with no state directory yet: creating one inside fails ($want; made empty, 0700, outside)" \
                "$want|700|" "$out|$(stat -c %a "$state/cordon" 2>&1)|$(ls -A "$state/cordon" 2>&1)"
        rm -rf "$state/cordon" "$state/other-tool"
done
