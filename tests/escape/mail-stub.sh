#!/usr/bin/env bash
# Attack: send mail from inside through the host's mailers (sendmail -t and friends), by PATH
# lookup or by absolute path, and rewrite the terminal through a hostile program name.
# Expected: NETWORK_MAIL_BLOCK's stub answers (exit 77, one line naming the program in printable
# bytes and the argument count, never an argument) whenever the network mode is not open (the
# spec's auto), and stands aside when it is open.
# Control: a program of the project runs; the host's fake mailers (root only, in a private mount
# namespace) answer outside the sandbox.
# The commands run inside are single-quoted on purpose: the sandbox expands them.
# shellcheck disable=SC2016
. "$(dirname "$0")/../lib/tap.sh"
ns_only "the mail stub is mounts; the landlock backend refuses NETWORK_MAIL_BLOCK"

MSG='cordon: sending mail is blocked in this sandbox (NETWORK_MAIL_BLOCK)'
STUB_DIR=/run/cordon/mail-block
iso=(--net isolated)
open=(--net open)

inside() { # inside NETARGS... -- CMD...: stdout+stderr in $out, status in $rc
        out=$(cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); rc=$?
}
# Bytes outside printable ASCII (newlines aside) in $1.
unprintable() { printf '%s' "$1" | tr -d '\n' | LC_ALL=C tr -d ' -~' | wc -c; }

plan 13

# The network mode is a setting of issue 13; until the command line has it, nothing here runs.
if ! (cd "$T_PROJECT" && "$CORDON" run --quiet "${iso[@]}" --dry-run -- true >/dev/null 2>&1); then
        for i in $(seq 13); do skip "--net is not on the command line yet" "mail stub check $i"; done
        exit 0
fi

printf '#!/bin/sh\necho project-program "$#"\n' > "$T_PROJECT/notmail"
chmod 755 "$T_PROJECT/notmail"
inside "${iso[@]}" -- "$T_PROJECT/notmail" a b
check "control: a program of the project runs" "0 project-program 2" "$rc $out"

inside "${iso[@]}" -- sendmail -t 'secret recipient'
check "sendmail -t: exit 77" 77 "$rc"
check "sendmail -t: the policy line with the name and the argument count" \
        "$MSG; sendmail was called with 2 arguments" "$out"
case $out in *secret*) not_ok "no argument text in the message" "$out" ;; *) ok "no argument text in the message" ;; esac

inside "${iso[@]}" -- sh -c 'command -v sendmail; command -v mail; echo "$PATH"'
check "PATH finds the stubs first, whatever the host has" \
        "$STUB_DIR/sendmail $STUB_DIR/mail $STUB_DIR" "$(echo "$out" | tr '\n' ' ' | cut -d: -f1)"

# exec -a sets argv[0]; for a script the kernel passes the path it ran instead, so the name
# printed is that of the stub. The stub never prints argv[0].
inside "${iso[@]}" -- bash -c 'exec -a "$(printf "x\033]0;pwn\007")" sendmail a b'
check "a hostile argv[0]: exit 77" 77 "$rc"
check "a hostile argv[0]: only printable bytes" 0 "$(unprintable "$out")"

# The name the stub reports is that of the path run: a link with escape sequences in its name.
inside "${iso[@]}" -- sh -c 'n=$(printf "/tmp/m\033]0;pwn\007\r"); ln -s '"$STUB_DIR"'/sendmail "$n" && "$n" 1 2 3'
check "a hostile program name: exit 77" 77 "$rc"
check "a hostile program name: reduced to its printable bytes" \
        "$MSG; m]0;pwn was called with 3 arguments" "$out"

# Every canonical mailer this host has answers with the stub by its absolute path.
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
        ok "no canonical mailer on this host (the fake host below covers the binds) # SKIP none installed"
else
        check "the host's mailers answer with the stub (${found[*]})" "" "${bad[*]}"
fi

# open, configured and resolved: the stub stands aside.
inside "${open[@]}" --dry-run -- true
if [ "$rc" -ne 0 ]; then
        skip "--net open is refused here: $(echo "$out" | head -1)" "open: no stub"
else
        check "open: no rule from NETWORK_MAIL_BLOCK in the plan" 0 "$(echo "$out" | grep -c NETWORK_MAIL_BLOCK)"
fi

# A host with mailers, made in a private mount namespace: overlays over /usr/sbin, /usr/bin and
# /etc/alternatives with a fake sendmail, and mail reaching bsd-mailx through the alternatives
# link, as Debian installs it.
if [ "$(id -u)" -ne 0 ]; then
        ok "fake host: mailers bound over, links followed # SKIP root only (overlay mounts)"
        ok "fake host: control outside the sandbox # SKIP root only (overlay mounts)"
        exit 0
fi
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
if ! unshare -m true 2>/dev/null || ! grep -qw overlay /proc/filesystems; then
        skip "no private mount namespace or overlayfs here" "fake host: mailers bound over"
        skip "no private mount namespace or overlayfs here" "fake host: control"
        exit 0
fi
res=$(cd "$T_PROJECT" && unshare -m bash "$fake/run.sh" "$fake" bash -c '
        "$0" run --quiet '"${iso[*]}"' -- sh -c "/usr/sbin/sendmail -t; echo \$?; /usr/bin/mail x y; echo \$?" 2>&1
        echo control: $(/usr/sbin/sendmail) $(/usr/bin/mail)' "$CORDON" 2>&1)
check "fake host: /usr/sbin/sendmail and /usr/bin/mail (via /etc/alternatives) are the stub" \
        "$MSG; sendmail was called with 1 arguments|77|$MSG; mail was called with 2 arguments|77" \
        "$(echo "$res" | grep -v '^control:' | tr '\n' '|' | sed 's/|$//')"
check "fake host: control outside the sandbox" "control: REAL-SENDMAIL REAL-BSD-MAILX" \
        "$(echo "$res" | grep '^control:')"
