#!/usr/bin/env bash
# Attack: link() ~/.ssh/id_rsa into the writable project, so it could be read from there.
# Control: the same link() succeeds outside (same filesystem, own file).
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }

mkdir -p "$HOME/.ssh" "$HOME/.aws" "$HOME/.gnupg"
chmod 700 "$HOME/.ssh"
echo "SSH-PRIVATE-KEY-h4rdl1nk" > "$HOME/.ssh/id_rsa"
chmod 600 "$HOME/.ssh/id_rsa"

plan 5
check "control: link() of the key into \$T_TMP works outside" "OK:None" \
        "$(python3 -c "$TRY" 'os.link(p, sys.argv[3])' "$HOME/.ssh/id_rsa" "$T_TMP/linked" 2>&1)"
rm -f "$T_TMP/linked"
check "link(~/.ssh/id_rsa, project/stolen): ENOENT" "ENOENT" \
        "$(inside -- python3 -c "$TRY" 'os.link(p, "stolen")' "$HOME/.ssh/id_rsa")"
check "link(~/.ssh/id_rsa, project/stolen) with --home-access write: ENOENT" "ENOENT" \
        "$(inside --home-access write -- python3 -c "$TRY" 'os.link(p, "stolen")' "$HOME/.ssh/id_rsa")"
check "linkat via the project-relative path ../.ssh/id_rsa with --home-access read: ENOENT" "ENOENT" \
        "$(inside --home-access read -- python3 -c "$TRY" 'os.link(p, "stolen")' ../.ssh/id_rsa)"
if [ -e "$T_PROJECT/stolen" ]; then
        not_ok "no link to the key appeared in the host project" "$(ls -l "$T_PROJECT/stolen")"
else
        ok "no link to the key appeared in the host project"
fi
