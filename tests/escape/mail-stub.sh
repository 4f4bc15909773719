#!/usr/bin/env bash
# Attack: send mail from inside through the host's mailers (sendmail -t and friends), by PATH
# lookup or by absolute path, rewrite the terminal through a hostile program name, and (landlock
# backend) replace, remove or move the stubs that stand first on PATH.
# Expected: NETWORK_MAIL_BLOCK's stub answers (exit 77, a deterrent naming the program in at most
# 64 printable bytes and the argument count, never an argument) whenever the network mode is not
# open (the spec's auto). Under the ns backend a mailer run by its absolute path is the stub too;
# the landlock backend, without mounts, has the stubs first on PATH only, in a directory the
# command can run but not change (EACCES; EXDEV for a hard link out of it), and the dry run says
# that absolute paths still run. NETWORK_MAIL_BLOCK=on is refused there.
# Control: NETWORK_MAIL_BLOCK=off and an open network leave the names to the host (none of these
# mailers is installed here: not found); a program of the project runs; the stubs' directory is
# refused what the private TMPDIR allows; the host's fake mailers answer outside the sandbox.
# The commands run inside are single-quoted on purpose: the sandbox expands them.
# shellcheck disable=SC2016
. "$(dirname "$0")/../lib/tap.sh"

MSG='cordon: mail is disabled by the configuration of this sandbox (NETWORK_MAIL_BLOCK)'

inside() { # inside NETARGS... -- CMD...: stderr in $out (stdout dropped), status in $rc
        out=$(cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1 >/dev/null); rc=$?
}
both() { out=$(cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); rc=$?; }
# Bytes outside printable ASCII (newlines aside) in $1.
unprintable() { printf '%s' "$1" | tr -d '\n' | LC_ALL=C tr -d ' -~' | wc -c; }

backend() {
b=$1
iso=(--backend "$b" --net isolated)
open=(--backend "$b" --net open)
landlock=false
[ "$b" = landlock ] && landlock=true
if $landlock; then STUB_DIR_GLOB='/dev/shm/cordon-mail-??????'; else STUB_DIR_GLOB=/run/cordon/mail-block; fi
printf '#!/bin/sh\necho project-program "$#"\n' > "$T_PROJECT/notmail"
chmod 755 "$T_PROJECT/notmail"
both "${iso[@]}" -- "$T_PROJECT/notmail" a b
check "$b: control: a program of the project runs" "0 project-program 2" "$rc $out"

inside "${iso[@]}" -- sendmail -t 'secret recipient'
check "$b: sendmail -t by name: exit 77" 77 "$rc"
check "$b: sendmail -t: the first line names the program and the argument count" \
        "$MSG: sendmail was called with 2 arguments and sent nothing." "$(echo "$out" | head -1)"
case $out in *secret*) not_ok "$b: no argument text in the message" "$out" ;; *) ok "$b: no argument text in the message" ;; esac
check_like "$b: the message says it is a boundary, that the other ways are closed, and what to do instead" \
        "*not a fault to repair*this same stub*SMTP ports*must not retry*Tell the user*offer another channel*" \
        "$(echo "$out" | tr '\n' ' ')"
if $landlock; then
        check_like "$b: the message claims the names on PATH only" "*every mailer name on PATH here*" "$out"
else
        check_like "$b: the message claims names and paths" "*called by name or at its usual path*" "$out"
fi
inside "${iso[@]}" -- mail x
check "$b: mail x by name: exit 77, the policy line" "77 $MSG: mail was called with 1 arguments and sent nothing." \
        "$rc $(echo "$out" | head -1)"

both "${iso[@]}" -- sh -c 'command -v sendmail; command -v mail; echo "${PATH%%:*}"'
check_like "$b: PATH finds the stubs first, whatever the host has" \
        "$STUB_DIR_GLOB/sendmail $STUB_DIR_GLOB/mail $STUB_DIR_GLOB" "$(echo "$out" | tr '\n' ' ' | sed 's/ $//')"

# exec -a sets argv[0]; for a script the kernel passes the path it ran instead, so the name
# printed is that of the stub. The stub never prints argv[0].
inside "${iso[@]}" -- bash -c 'exec -a "$(printf "x\033]0;pwn\007")" sendmail a b'
check "$b: a hostile argv[0]: exit 77" 77 "$rc"
check "$b: a hostile argv[0]: only printable bytes" 0 "$(unprintable "$out")"

# The name the stub reports is that of the path run: a link with escape sequences in its name,
# and one of 200 bytes, of which 64 are printed.
inside "${iso[@]}" -- sh -c 'd=${PATH%%:*}; n=$(printf "${TMPDIR:-/tmp}/m\033]0;pwn\007\r"); ln -s "$d/sendmail" "$n" && "$n" 1 2 3'
check "$b: a hostile program name: exit 77, reduced to its printable bytes" \
        "77 $MSG: m]0;pwn was called with 3 arguments and sent nothing." "$rc $(echo "$out" | head -1)"
inside "${iso[@]}" -- sh -c 'd=${PATH%%:*}; n=${TMPDIR:-/tmp}/$(printf "m%.0s" $(seq 200)); ln -s "$d/sendmail" "$n" && "$n"'
check "$b: a name of 200 bytes: 64 of them" \
        "77 $MSG: $(printf 'm%.0s' $(seq 64)) was called with 0 arguments and sent nothing." "$rc $(echo "$out" | head -1)"

# Positive controls: off, and an open network (auto steps aside), leave the names to the host.
both "${iso[@]}" --set NETWORK_MAIL_BLOCK=off -- sh -c 'command -v sendmail || echo none; command -v mail || echo none'
check "$b: control: NETWORK_MAIL_BLOCK=off: no stub on PATH" "0 none none" "$rc $(echo "$out" | tr '\n' ' ' | sed 's/ $//')"
both "${open[@]}" --dry-run -- true
if [ "$rc" -ne 0 ]; then
        skip "--net open is refused here: $(echo "$out" | head -1)" "$b: open: no stub"
else
        check "$b: open: nothing from NETWORK_MAIL_BLOCK in the plan" 0 "$(echo "$out" | grep -c NETWORK_MAIL_BLOCK)"
fi

if $landlock; then
        # The stubs' directory: not to be changed, moved out of or added to. Each attack, then
        # the same in the private TMPDIR as the control.
        ATTACK='d=${PATH%%:*}
python3 -c "import errno, os, sys
try:
    os.link(sys.argv[1] + \"/sendmail\", sys.argv[2] + \"/x\"); print(\"OK\")
except OSError as e:
    print(errno.errorcode[e.errno])" "$d" "$TMPDIR"
try() { if "$@" 2>/dev/null; then echo OK; else echo FAIL; fi; }
printf "%s " "$(try sh -c "echo x > $d/sendmail")" "$(try rm "$d/mail")" \
        "$(try touch "$d/new")" "$(try mv "$d/sendmail" "$TMPDIR/")"'
        both "${iso[@]}" -- sh -c "$ATTACK"
        check "$b: the stubs cannot be rewritten, removed, added to or moved; a hard link out is EXDEV" \
                "EXDEV FAIL FAIL FAIL FAIL" "$(echo "$out" | tr '\n' ' ' | sed 's/ *$//')"
        both "${iso[@]}" -- sh -c 'd=$TMPDIR/c; mkdir "$d" && cp "${PATH%%:*}/sendmail" "$d/" &&
                chmod u+w "$d/sendmail" && ln -s sendmail "$d/mail" && PATH=$d:$PATH; '"$ATTACK"
        check "$b: control: the same in the private TMPDIR all succeed" "OK OK OK OK OK" \
                "$(echo "$out" | tr '\n' ' ' | sed 's/ *$//')"
        # The directory also holds Slurm's stubs where the host has Slurm (SLURM_SCOPE): not counted.
        both "${iso[@]}" -- sh -c 'stat -c %a "${PATH%%:*}/sendmail"; ls "${PATH%%:*}" |
                grep -cvxE "sbatch|srun|salloc|squeue|scancel|scontrol|sstat|sacct|sinfo|sprio|sshare|sacctmgr"; echo "${PATH%%:*}"'
        stubdir=$(echo "$out" | sed -n 3p)
        check "$b: the stub is 0555, one file and its links" "555 13" "$(echo "$out" | sed -n 1,2p | tr '\n' ' ' | sed 's/ *$//')"
        check "$b: the directory is removed after the run" "removed" \
                "$(case "$stubdir" in /dev/shm/cordon-mail-* | /tmp/cordon-mail-*) [ -e "$stubdir" ] && echo "$stubdir is left" || echo removed ;; *) echo "no stub directory: $stubdir" ;; esac)"
        # The host's /dev/shm granted writable (PRIVATE_IPC=false): the directory goes elsewhere.
        both "${iso[@]}" --set PRIVATE_IPC=false -- sh -c 'd=${PATH%%:*}; echo "$d"; { echo x > "$d/sendmail"; } 2>/dev/null || echo FAIL'
        check_like "$b: with /dev/shm writable inside, the stubs go to /tmp, still not writable" \
                "/tmp/cordon-mail-?????? FAIL" "$(echo "$out" | tr '\n' ' ' | sed 's/ *$//')"
        both "${iso[@]}" --dry-run -- true
        check_like "$b: the dry run says only the PATH stubs apply, absolute paths still run" \
                "*mail: NETWORK_MAIL_BLOCK: the landlock backend has no mounts, so only the mailers called by name are stopped*such as /usr/sbin/sendmail, still runs*" \
                "$(echo "$out" | tr '\n' ' ')"
        both "${iso[@]}" --set NETWORK_MAIL_BLOCK=on -- true
        check_like "$b: NETWORK_MAIL_BLOCK=on is refused" "*NETWORK_MAIL_BLOCK=on cannot be enforced by the landlock backend*" "$rc $out"
        for i in 1 2; do ok "landlock: mailers by absolute path are ns only # SKIP the landlock backend has no mounts"; done
        return
fi

# ns backend: the stubs' directory is read-only, and every canonical mailer this host has
# answers with the stub by its absolute path.
both "${iso[@]}" -- sh -c ': > /run/cordon/mail-block/sendmail'
check_like "$b: the stubs' directory is read-only" "*Read-only file system*" "$out"
found=() bad=()
for p in /usr/sbin/sendmail /usr/lib/sendmail /usr/bin/mail /usr/bin/mailx /usr/bin/mutt \
        /usr/bin/msmtp /usr/sbin/ssmtp /usr/bin/s-nail /usr/bin/swaks /usr/sbin/exim4 \
        /usr/sbin/postdrop /usr/sbin/dma /var/qmail/bin/qmail-inject; do
        [ -e "$p" ] || continue
        found+=("$p")
        inside "${iso[@]}" -- "$p" x
        [ "$rc" = 77 ] || bad+=("$p: $rc $out")
done
if [ ${#found[@]} -eq 0 ]; then
        ok "$b: no canonical mailer on this host (the fake host below covers the binds) # SKIP none installed"
else
        check "$b: the host's mailers answer with the stub (${found[*]})" "" "${bad[*]}"
fi
for i in 1 2 3 4 5; do ok "ns: the landlock backend's directory # SKIP ns backend"; done

}

plan 46
backend ns
backend landlock

# A host with mailers, made in a private mount namespace (root's own, or a user namespace's for
# anyone else): overlays over /usr/sbin, /usr/bin and /etc/alternatives with a fake sendmail, and
# mail reaching bsd-mailx through the alternatives link, as Debian installs it.
fake=$T_TMP/fake
mkdir -p "$fake"
cat > "$fake/run.sh" <<'EOF'
set -e
fake=$1; shift
for d in /usr/sbin /usr/bin /etc/alternatives; do
        n=$(echo "$d" | tr / _)
        mkdir -p "$fake/u$n" "$fake/w$n"
        mount -t overlay overlay -o "lowerdir=$d,upperdir=$fake/u$n,workdir=$fake/w$n" "$d"
done
printf '#!/bin/sh\necho REAL-SENDMAIL\n' > /usr/sbin/sendmail
printf '#!/bin/sh\necho REAL-BSD-MAILX\n' > /usr/bin/bsd-mailx
chmod 755 /usr/sbin/sendmail /usr/bin/bsd-mailx
ln -sf /usr/bin/bsd-mailx /etc/alternatives/mail
ln -sf /etc/alternatives/mail /usr/bin/mail
"$@"
EOF
if [ "$(id -u)" -eq 0 ]; then un=(unshare -m); else un=(unshare -Urm); fi
if ! "${un[@]}" true 2>/dev/null || ! grep -qw overlay /proc/filesystems; then
        skip "no private mount namespace or overlayfs here" "fake host: mailers bound over"
        skip "no private mount namespace or overlayfs here" "fake host: control"
        exit 0
fi
res=$(cd "$T_PROJECT" && "${un[@]}" bash "$fake/run.sh" "$fake" bash -c '
        "$0" run --quiet --backend ns --net isolated -- sh -c "/usr/sbin/sendmail -t 2>/tmp/e; echo \$?; head -1 /tmp/e; /usr/bin/mail x y 2>/tmp/e; echo \$?; head -1 /tmp/e" 2>&1
        echo control: $(/usr/sbin/sendmail) $(/usr/bin/mail)' "$CORDON" 2>&1)
check "fake host: /usr/sbin/sendmail and /usr/bin/mail (via /etc/alternatives) by absolute path are the stub" \
        "77|$MSG: sendmail was called with 1 arguments and sent nothing.|77|$MSG: mail was called with 2 arguments and sent nothing." \
        "$(echo "$res" | grep -v '^control:' | tr '\n' '|' | sed 's/|$//')"
check "fake host: control outside the sandbox" "control: REAL-SENDMAIL REAL-BSD-MAILX" \
        "$(echo "$res" | grep '^control:')"
