#!/usr/bin/env bash
# tap: split: root (as the test user it skips itself: see run-tap.sh's T_TAP_SPLIT)
# tap: exclusive (its jobs run as the test user, whose processes and files other files count)
# Slurm from inside a sandbox (issue 27, the chaperon): the sandbox's sbatch, srun, squeue,
# scancel and sacctmgr are cordon's stub, answered by the chaperon on the host against the test
# cluster of tests/lib/slurm.sh. Under both backends, as the unprivileged test user: a job
# submitted inside runs confined on the node (a planted ~/.ssh file unreadable, where the same
# job submitted outside reads it), the scope keeps squeue and scancel to the sandbox's project,
# refused directives name their option and rule, munge is out of reach inside, and the
# session's log records the calls without the environment's values. As root only: the cluster
# needs root, and every sandbox runs as the test user.
. "$(dirname "$0")/../lib/slurm.sh"
ns_only "each backend is run from the ns pass, as the test user"
if [ "$(id -u)" != 0 ]; then
        echo "1..0 # SKIP covered by the root run, which starts the cluster and runs every sandbox as $SLURM_TEST_USER"
        exit 0
fi
slurm_require

plan 83
u=$SLURM_TEST_USER
home=$(getent passwd "$u" | cut -d: -f6)
secret="cordon-slurm-secret-$$"
mkdir -p "$home/.ssh"
printf '%s\n' "$secret" >"$home/.ssh/id_cordon_slurm_$$"
chown -R "$u:" "$home/.ssh"
chmod 700 "$home/.ssh"
chmod 600 "$home/.ssh/id_cordon_slurm_$$"
state="$home/.local/state/cordon/chaperon"
listener=
# What the file started; slurm_stop (the library's EXIT trap) after it.
cleanup() {
        rm -f "$home/.ssh/id_cordon_slurm_$$"
        [ -n "$listener" ] && kill "$listener" 2>/dev/null
}
trap 'cleanup; slurm_stop' EXIT
proj=$SLURM_USER_DIR/proj
mkdir -p "$proj"
chown "$u:" "$proj"

# as_user CMD...: CMD as the test user in the project, with the cluster's configuration.
as_user() {
        (cd "$proj" && setpriv --reuid="$u" --regid="$u" --init-groups --reset-env -- \
                env SLURM_CONF="$SLURM_CONF" "$@")
}
# MUNGE_TRY SOCKET: a unix connect to SOCKET; "connected" or the errno (no quote of its own).
MUNGE_TRY='import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("connected")
except OSError as e:
    print(e.errno)'
# in_box BACKEND CMD...: CMD in a sandbox of the test user.
in_box() {
        local be=$1
        shift
        # The landlock backend's network is named: its fallback from filtered is a warning.
        local net=()
        [ "$be" = landlock ] && net=(--net proxied)
        as_user "$CORDON" run -q --backend "$be" "${net[@]}" -- "$@"
}

cat >"$proj/peek.sh" <<JOB
#!/bin/sh
echo "backend=\${SANDBOX_BACKEND:-none}"
cat "$home/.ssh/id_cordon_slurm_$$" 2>&1 || true
JOB
chown "$u:" "$proj/peek.sh"

# The positive control: the same job, submitted outside any sandbox, reads the file.
id=$(as_user sbatch --parsable -o "$proj/direct.out" peek.sh 2>&1)
slurm_wait_job "$id" COMPLETED 30 2>/dev/null
check "control: a job submitted outside a sandbox reads the planted ~/.ssh file" \
        "backend=none|$secret" "$(paste -sd'|' "$proj/direct.out" 2>&1)"
direct=$(as_user sbatch --parsable -o /dev/null --wrap 'sleep 300' 2>&1)
slurm_wait_job "$direct" RUNNING 30 2>/dev/null

for be in ns landlock; do
        # A batch job from inside: the stub, the chaperon, the wrapper on the node.
        out=$(in_box "$be" sbatch --parsable -o "$proj/job-$be.out" peek.sh 2>"$T_TMP/err")
        rc=$?
        check_like "$be: sbatch inside prints the job's id" "0:+([0-9])" "$rc:$out"
        id=$out
        if slurm_wait_job "$id" COMPLETED 60 2>"$T_TMP/wait"; then
                ok "$be: the job completed"
        else
                not_ok "$be: the job completed" "$(cat "$T_TMP/err" "$T_TMP/wait")" \
                        "$(cat "$proj/job-$be.out" 2>&1)"
        fi
        job_out=$(cat "$proj/job-$be.out" 2>&1)
        check_like "$be: the job ran in a sandbox of the same backend" "backend=$be*" "$job_out"
        check_like "$be: the job cannot read the planted ~/.ssh file" "*@(Permission denied|No such file)*" \
                "$job_out"
        check "$be: ... and its output holds nothing of it" "" "$(grep -F "$secret" <<<"$job_out")"

        # The scope (project, the default): the sandbox sees its project's jobs only.
        seen=$(in_box "$be" squeue -h -o %i 2>&1)
        rc=$?
        check "$be: squeue inside succeeds and does not list the job submitted outside" "0:" \
                "$rc:$(grep -x "$direct" <<<"$seen")"
        sid=$(in_box "$be" sbatch --parsable -o "$proj/sleep-$be.out" --wrap 'sleep 300' 2>&1)
        slurm_wait_job "$sid" RUNNING 30 2>/dev/null
        seen=$(in_box "$be" squeue -h -o %i 2>&1)
        rc=$?
        check "$be: squeue inside lists the sandbox's running job" "0:$sid" "$rc:$(grep -x "$sid" <<<"$seen")"
        out=$(in_box "$be" scancel "$direct" 2>&1)
        rc=$?
        check "$be: scancel of a job out of scope is refused, naming the job and the rule" \
                "1:scancel (cordon): refused by the sandbox's policy: argv[1]: '$direct': the operand names job $direct, which is not in scope (SLURM_SCOPE=project: only the jobs of sandbox sessions of this project): name a job of the scope, or change SLURM_SCOPE [job-out-of-scope]" \
                "$rc:$out"
        check "$be: ... and that job still runs" "RUNNING" \
                "$(squeue -h -j "$direct" -o %T 2>&1)"
        out=$(in_box "$be" scancel "$sid" 2>&1)
        rc=$?
        check "$be: scancel of the sandbox's own job succeeds" "0:" "$rc:$out"
        slurm_wait_job "$sid" CANCELLED 20 2>/dev/null
        check "$be: ... and it is cancelled" "CANCELLED" "$SLURM_JOB_STATE"

        # Refused submissions: each names the option as written and the rule, and queues nothing.
        before=$(squeue -h -o %i | wc -l)
        out=$(in_box "$be" sbatch -o /etc/cordon-job.out --wrap true 2>&1)
        rc=$?
        check_like "$be: --output outside the project is refused with its rule" \
                "1:sbatch (cordon): refused by the sandbox's policy: *'-o' (--output)*\[path-not-writable\]" "$rc:$out"
        printf '#!/bin/sh\n#SBATCH --get-user-env\ntrue\n' >"$proj/getenv.sh"
        out=$(in_box "$be" sbatch getenv.sh 2>&1)
        rc=$?
        check_like "$be: #SBATCH --get-user-env is refused, naming its script line" \
                "1:*script line 2*--get-user-env*" "$rc:$out"
        out=$(in_box "$be" srun --task-prolog=/bin/true true 2>&1)
        rc=$?
        check_like "$be: srun --task-prolog is refused" "1:*--task-prolog*" "$rc:$out"
        # A link the sandbox planted in its project: Slurm would write through it, outside.
        as_user ln -sfn "$home/.cordon-planted-target" "$proj/evil-$be.out"
        as_user ln -sfn "$home/.ssh" "$proj/evil-dir-$be"
        out=$(in_box "$be" sbatch -o "evil-$be.out" --wrap true 2>&1)
        rc=$?
        check_like "$be: --output through a link planted in the project is refused [path-link]" \
                "1:*evil-$be.out' passes through a symbolic link on the host*\[path-link\]" "$rc:$out"
        out=$(in_box "$be" sbatch -o "evil-dir-$be/x.out" --wrap true 2>&1)
        rc=$?
        check_like "$be: ... and through a linked directory" "1:*\[path-link\]*" "$rc:$out"
        check "$be: ... nothing was written at the links' targets" "no" \
                "$([ -e "$home/.cordon-planted-target" ] || [ -e "$home/.ssh/x.out" ] && echo yes || echo no)"
        out=$(in_box "$be" sacctmgr list users 2>&1)
        rc=$?
        check_like "$be: sacctmgr is refused" "1:*sacctmgr is not available in a sandbox*" "$rc:$out"
        check "$be: nothing was queued by the refused calls" "$before" "$(squeue -h -o %i | wc -l)"

        # srun inside: the step runs confined too.
        out=$(in_box "$be" srun cat "$home/.ssh/id_cordon_slurm_$$" 2>&1)
        rc=$?
        check_like "$be: srun inside runs its step confined: the planted file is unreadable" \
                "[1-9]*:*@(Permission denied|No such file)*" "$rc:$out"

        # munge: the sandbox reaches Slurm only through the chaperon.
        out=$(in_box "$be" python3 -c "$MUNGE_TRY" "$SLURM_DIR/run/munge.socket" 2>/dev/null)
        check_like "$be: the cluster's munge socket cannot be reached inside" "@(2|13|1)" "$out"
        if [ "$be" = landlock ]; then
                # The open network has no mount view either: the supervisor keeps it out.
                out=$(as_user "$CORDON" run -q --backend landlock --net open -- \
                        python3 -c "$MUNGE_TRY" "$SLURM_DIR/run/munge.socket" 2>/dev/null)
                check "$be: ... nor under the open network (EACCES)" "13" "$out"
        fi
        out=$(as_user python3 -c "$MUNGE_TRY" "$SLURM_DIR/run/munge.socket" 2>&1)
        check "$be: control: outside, the test user reaches it" "connected" "$out"
done

# The network: a job from a sandbox with no network has none on the node either.
port=$(python3 -S -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -S -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16)
while True:
    c, _ = s.accept(); c.sendall(b"HOST"); c.close()' "$port" &
listener=$!
for _ in $(seq 50); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
connect="exec 3<>/dev/tcp/127.0.0.1/$port && head -c 4 <&3 || echo UNREACHABLE"
id=$(as_user sbatch --parsable -o "$proj/net-direct.out" --wrap "bash -c '$connect'" 2>&1)
slurm_wait_job "$id" COMPLETED 30 2>/dev/null
check "control: a job submitted outside reaches the host's 127.0.0.1:$port" "HOST" \
        "$(tr -d '\n' <"$proj/net-direct.out" 2>&1)"
id=$(as_user "$CORDON" run -q --backend ns --net isolated -- sbatch --parsable \
        -o "$proj/net-box.out" --wrap "bash -c '$connect'" 2>&1)
slurm_wait_job "$id" COMPLETED 60 2>/dev/null
check "a job from a sandbox with --net isolated cannot reach it on the node" "UNREACHABLE" \
        "$(grep -o 'UNREACHABLE\|HOST' "$proj/net-box.out" 2>&1 | paste -sd' ')"
# Ended here, not only at the exit: it holds the descriptors the file inherited (run-tap.sh's
# locks among them) for as long as it lives.
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null
listener=

# More refused submissions: each names its option and rule.
while IFS='|' read -r what rule; do
        # shellcheck disable=SC2086 # the options are words
        out=$(in_box ns sbatch $what --wrap true 2>&1)
        check_like "refused: sbatch $what [$rule]" "*\[$rule\]" "$out"
done <<REFUSED
--export=GITHUB_TOKEN|export-blocked
--chdir=$home/.ssh|path-not-readable
--error=$home/.bashrc|path-not-writable
--input=$home/.ssh/id_cordon_slurm_$$|path-not-readable
--get-user-env=10L|option-refused
REFUSED
out=$(in_box ns srun --multi-prog "$home/.ssh/id_cordon_slurm_$$" 2>&1)
check_like "refused: srun --multi-prog with a file outside" "*\[path-not-readable\]" "$out"

# Each scope's view: a held job of one sandbox, the job submitted outside, seen from another
# sandbox of the same project under each SLURM_SCOPE.
held=$(in_box ns sbatch --parsable --hold -o "$proj/held.out" --wrap true 2>&1)
seen_as() { as_user "$CORDON" run -q --backend ns --set "SLURM_SCOPE=$1" -- squeue -h -o %i 2>&1 |
        grep -xE "$held|$direct" | sort -n | paste -sd' '; }
check "SLURM_SCOPE=session: another sandbox sees neither the held job nor the outside one" "" \
        "$(seen_as session)"
check "SLURM_SCOPE=project: it sees the project's held job, not the outside one" "$held" \
        "$(seen_as project)"
check "SLURM_SCOPE=user: it sees both" "$(printf '%s\n' "$held" "$direct" | sort -n | paste -sd' ')" \
        "$(seen_as user)"
check "SLURM_SCOPE=none: it sees both" "$(printf '%s\n' "$held" "$direct" | sort -n | paste -sd' ')" \
        "$(seen_as none)"
out=$(as_user "$CORDON" run -q --backend ns --set SLURM_SCOPE=session -- scancel "$held" 2>&1)
check_like "SLURM_SCOPE=session: scancel of the project's job from another session is refused" \
        "*\[job-out-of-scope\]" "$out"
out=$(in_box ns sacct --allusers 2>&1)
check_like "sacct --allusers is refused in every scope" "*--allusers*" "$out"
scancel "$held" "$direct" 2>/dev/null

# The output's race: slurmstepd would open --output by path when the job starts, long after the
# check. A held job's output directory swapped for a link to ~/.ssh meanwhile (what the sandbox
# can do in its project) must not take the job's output there: the job opens it itself,
# confined. Control: the same job with its directory left alone writes its file.
as_user mkdir -p "$proj/swap" "$proj/kept"
rm -rf "$home/.ssh/authorized_keys" "$state/out" # job ids start at 1 in every cluster
race=$(in_box ns sbatch --parsable --hold -o swap/authorized_keys --wrap 'echo ATTACK-KEY' 2>&1)
ctl=$(in_box ns sbatch --parsable --hold -o kept/out-%j.txt --wrap 'echo ATTACK-KEY' 2>&1)
as_user sh -c "rmdir '$proj/swap' && ln -s '$home/.ssh' '$proj/swap'"
as_user scontrol release "$race" "$ctl"
slurm_wait_job "$race" FAILED 60 2>/dev/null || [ "$SLURM_JOB_STATE" = COMPLETED ]
slurm_wait_job "$ctl" COMPLETED 60 2>/dev/null
check "a held job's output dir swapped for a link to ~/.ssh: nothing written there" "absent" \
        "$([ -e "$home/.ssh/authorized_keys" ] && echo present || echo absent)"
check "control: the job whose dir was left alone wrote its file (%j expanded)" "ATTACK-KEY" \
        "$(cat "$proj/kept/out-$ctl.txt" 2>&1)"
check "Slurm's own stream of the job went to the chaperon's state directory" "yes" \
        "$(compgen -G "$state/out/*.$ctl.out" >/dev/null && echo yes)"
out=$(in_box ns srun -o "$proj/step.out" true 2>&1)
check_like "srun --output to a file is refused (opened after the check)" "*\[stdio-file\]" "$out"

# A site with cordon's SPANK plugin: the chaperon adds --cordon (and the sandbox's network mode)
# instead of a wrapper, and the plugin confines the job on the node.
if [ -n "${CORDON_SPANK:-}" ] && [ -f "$CORDON_SPANK" ]; then
        policy=$SLURM_DIR/cordon.d
        mkdir -p -m 755 "$policy"
        printf '%s\n' 'ENABLED_AGENTS=()' >"$policy/default.conf"
        chmod 644 "$policy/default.conf"
        slurm_set_plugstack "required $CORDON_SPANK policy_dir=$policy"
        id=$(as_user "$CORDON" run -q --backend ns --net isolated -- sbatch --parsable \
                -o "$proj/spank.out" peek.sh 2>"$T_TMP/err")
        slurm_wait_job "$id" COMPLETED 60 2>>"$T_TMP/err"
        check_like "spank: the job the sandbox submitted is its script, with --cordon, not a wrapper" \
                "*.job*" "$(scontrol show job "$id" 2>&1 | grep -o 'Command=[^ ]*')"
        job_out=$(cat "$proj/spank.out" 2>&1)
        check_like "spank: the plugin confined the job: the planted file is unreadable" \
                "backend=landlock*Permission denied*" "$(paste -sd' ' <<<"$job_out")"
        out=$(as_user "$CORDON" run -q --backend ns --net isolated -- srun cat \
                "$home/.ssh/id_cordon_slurm_$$" 2>&1)
        check_like "spank: srun from the sandbox runs its step under the plugin" \
                "*Permission denied*" "$out"
        # An open network: the plugin would leave the node's munge socket to the job (a task
        # confining itself keeps its node's unix sockets), so the job takes the wrapper.
        id=$(as_user "$CORDON" run -q --backend ns --net open -- sbatch --parsable \
                -o spank-open.out --wrap "python3 -c '$MUNGE_TRY' $SLURM_DIR/run/munge.socket" \
                2>"$T_TMP/err")
        slurm_wait_job "$id" COMPLETED 60 2>>"$T_TMP/err"
        check_like "spank: an open-network sandbox's job takes the wrapper, not the plugin" \
                "*.sh" "$(scontrol show job "$id" 2>&1 | grep -o 'Command=[^ ]*')"
        check_like "spank: ... and its job cannot reach the munge socket" "@(2|13)" \
                "$(cat "$proj/spank-open.out" 2>&1)"
        slurm_set_plugstack ""
elif [ -n "${T_SANITIZED:-}" ]; then
        for _ in 1 2 3 4 5; do ok "spank: a job under the plugin # SKIP a sanitized build has no plugin (Slurm's programs load it)"; done
elif [ "${CORDON_TESTS_MUST_RUN:-0}" = 1 ]; then
        for _ in 1 2 3 4 5; do not_ok "spank: the plugin is built (CORDON_SPANK)"; done
else
        for _ in 1 2 3 4 5; do skip "the SPANK plugin is not built here" "spank: a job under the plugin"; done
fi

# The sandbox's own settings reach its jobs: a file its command line masks stays masked there.
printf 'masked-%s\n' "$$" >"$proj/masked.txt"
chown "$u:" "$proj/masked.txt"
id=$(as_user "$CORDON" run -q --backend ns --net isolated -- sbatch --parsable -o "$proj/unmasked.out" \
        --wrap "cat $proj/masked.txt; echo end" 2>&1)
slurm_wait_job "$id" COMPLETED 60 2>/dev/null
check "control: a job from a sandbox without --mask reads the project file" "masked-$$ end" \
        "$(paste -sd' ' "$proj/unmasked.out" 2>&1)"
id=$(as_user "$CORDON" run -q --backend ns --net isolated --mask "$proj/masked.txt" -- sbatch \
        --parsable -o "$proj/masked.out" --wrap "cat $proj/masked.txt; echo end" 2>&1)
slurm_wait_job "$id" COMPLETED 60 2>/dev/null
check "a job from a sandbox with --mask FILE finds it masked too (the settings are baked in)" "end" \
        "$(paste -sd' ' "$proj/masked.out" 2>&1)"

# Slurm's token (auth/jwt) stays outside, whatever its shape.
out=$(as_user env SLURM_JWT=not-a-jwt-shape "$CORDON" run -q --backend ns -- sh -c 'echo "[${SLURM_JWT-unset}]"' 2>&1)
check "SLURM_JWT does not reach the sandbox" "[unset]" "$out"

# A cordon copied alone (no stub or chaperon beside it, none installed): it runs, says Slurm's
# commands are not served, and the host's sbatch inside reaches nothing (munge is out).
lone=$(mktemp -d /tmp/cordon-lone.XXXXXX)
cp "$CORDON" "$lone/cordon" && chmod 755 "$lone"
out=$(as_user "$lone/cordon" run -q --backend ns -- sh -c 'sbatch --wrap true >/dev/null 2>&1; echo "sbatch:$?"' 2>&1)
rm -rf "$lone"
check_like "a cordon without its Slurm programs runs, saying they are not served" \
        "*stub program*Slurm's commands are not served in this sandbox*" "$out"
check_like "... and the host's sbatch inside reaches nothing" "*sbatch:[1-9]*" "$out"

# A sandbox that never calls Slurm starts no chaperon: no log is left.
before=$(ls "$state" | wc -l)
in_box ns true
check "a sandbox that calls no Slurm command leaves no chaperon log" "$before" "$(ls "$state" | wc -l)"

# Retention: an old log of the user's goes at the next chaperon's start, other files stay.
old_log="$state/oldhost_4242_20200101T000000Z.log"
as_user sh -c "echo old >'$old_log' && touch -d '2020-01-02' '$old_log' && echo keep >'$state/notes.txt'"
in_box ns squeue -h >/dev/null 2>&1
check "an old log (CHAPERON_LOG_RETAIN_DAYS) is pruned at the next chaperon's start; other files stay" \
        "gone|keep" "$([ -e "$old_log" ] && echo there || echo gone)|$(cat "$state/notes.txt" 2>&1)"

# The session logs: the calls are there, the environment's values are not.
logs=$(ls "$state"/*.log 2>/dev/null | wc -l)
check_like "each sandbox that called Slurm left a log" "+([0-9])" "$logs"
check "the logs record the sbatch calls" "yes" \
        "$(grep -lq 'sbatch' "$state"/*.log 2>/dev/null && echo yes)"
check "the logs record the refusals with their rule" "yes" \
        "$(grep -q '\[job-out-of-scope\]' "$state"/*.log 2>/dev/null && echo yes)"
check "no log holds the cluster's configuration path as a value" "" \
        "$(grep -l "SLURM_CONF=$SLURM_CONF" "$state"/*.log 2>/dev/null)"
check "the log directory is the user's and private" "$u 700" "$(stat -c '%U %a' "$state" 2>&1)"

# CHAPERON_LOG_LEVEL=debug captures the batch script, line by line; info does not.
as_user sh -c "printf '#!/bin/sh\necho debug-marker-$$\n' >debug.sh; printf '#!/bin/sh\necho info-marker-$$\n' >info.sh"
as_user "$CORDON" run -q --backend ns --set CHAPERON_LOG_LEVEL=debug -- sbatch -o debug.out debug.sh >/dev/null 2>&1
as_user "$CORDON" run -q --backend ns -- sbatch -o info.out info.sh >/dev/null 2>&1
check_like "debug: the log holds the script's lines" "*script *.job:2: echo debug-marker-$$*" \
        "$(cat "$state"/*.log 2>/dev/null)"
check "info: no log holds that script's text" "" "$(grep -l "info-marker-$$" "$state"/*.log 2>/dev/null)"
