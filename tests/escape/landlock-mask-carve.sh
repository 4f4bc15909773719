#!/usr/bin/env bash
# Attack (landlock backend): read what is masked when its parent directory is granted. Landlock
# rules only add rights, so the launcher "carves": the parent's grant is replaced by grants on
# its other entries. Masked: a file of the project (--mask) and the credential directory ~/.ssh
# with --home-access read. Expected: EACCES for them, their siblings readable. Control: the same
# reads with --profile unrestricted.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet --backend landlock "$@" 2>&1) | drop_net_fallback; }
masked() { inside --mask "$T_PROJECT/secret.env" -- python3 -c "$TRY" "$@"; }
homeread() { inside --home-access read -- python3 -c "$TRY" "$@"; }

echo "API_SECRET=c4rv3d" > "$T_PROJECT/secret.env"
echo "readme" > "$T_PROJECT/README"
mkdir -p "$T_PROJECT/src"
echo "code" > "$T_PROJECT/src/main.c"
mkdir -p "$HOME/.ssh"
chmod 700 "$HOME/.ssh"
echo "SSH-PRIVATE-KEY-c4rv3d" > "$HOME/.ssh/id_ed25519"
echo "alias ll='ls -l'" > "$HOME/.bashrc"

plan 14
check "masked project file: EACCES" "EACCES" "$(masked 'open(p).read()' secret.env)"
check "writing the masked project file: EACCES" "EACCES" "$(masked 'open(p, "a")' secret.env)"
check "unlinking the masked project file: EACCES" "EACCES" "$(masked 'os.unlink(p)' secret.env)"
check "sibling README stays readable" "OK:readme" "$(masked 'open(p).read()' README)"
check "src/main.c stays writable" "OK:0" "$(masked 'open(p, "a").write("")' src/main.c)"
check "the project stays listable" "OK:['README', 'secret.env', 'src']" \
        "$(masked 'sorted(os.listdir(p))' .)"
check "... and the host file is untouched" "API_SECRET=c4rv3d" "$(cat "$T_PROJECT/secret.env")"
check "control: with --profile unrestricted the masked file is readable" "OK:API_SECRET=c4rv3d" \
        "$(inside --profile unrestricted --mask "$T_PROJECT/secret.env" -- \
                python3 -c "$TRY" 'open(p).read()' secret.env)"

check "home read: ~/.ssh/id_ed25519: EACCES" "EACCES" \
        "$(homeread 'open(p).read()' "$HOME/.ssh/id_ed25519")"
check "home read: listing ~/.ssh: EACCES" "EACCES" "$(homeread 'os.listdir(p)' "$HOME/.ssh")"
check "home read: ~/.bashrc stays readable" "OK:alias ll='ls -l'" \
        "$(homeread 'open(p).read()' "$HOME/.bashrc")"
check "home read: the project stays writable" "OK:2" \
        "$(homeread 'open(p, "w").write("ok")' "$T_PROJECT/new")"
check "home read: writing ~/.bashrc: EACCES" "EACCES" "$(homeread 'open(p, "a")' "$HOME/.bashrc")"
check "control: with --profile unrestricted ~/.ssh/id_ed25519 is readable" \
        "OK:SSH-PRIVATE-KEY-c4rv3d" \
        "$(inside --profile unrestricted --home-access read -- \
                python3 -c "$TRY" 'open(p).read()' "$HOME/.ssh/id_ed25519")"
