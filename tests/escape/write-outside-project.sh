#!/usr/bin/env bash
# Attack: write anywhere but the project: the sandbox root, /etc, a read-only dotfile, the host
# directory holding $HOME, a sibling of a /var/tmp project. Control: the project itself is writable.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }
create='open(p, "x").write("evil")'

echo "alias ll='ls -l'" > "$HOME/.bashrc"
mkdir -p "$HOME/other-project"
echo "other" > "$HOME/other-project/file"
vt=$(mktemp -d /var/tmp/cordon-esc.XXXXXX)
trap 'rm -rf "$vt"' EXIT
mkdir "$vt/proj"

plan 11
check "control: creating a file in the project works" "OK:4" \
        "$(inside -- python3 -c "$TRY" "$create" "$T_PROJECT/made-inside")"
check "control: ... and it is on the host" "evil" "$(cat "$T_PROJECT/made-inside" 2>&1)"
check "creating /evil on the sandbox root: EROFS" "EROFS" \
        "$(inside -- python3 -c "$TRY" "$create" /evil)"
check "creating /etc/evil: EROFS" "EROFS" "$(inside -- python3 -c "$TRY" "$create" /etc/evil)"
check "appending to the read-only ~/.bashrc: EROFS" "EROFS" \
        "$(inside -- python3 -c "$TRY" 'open(p, "a")' "$HOME/.bashrc")"
check "reading another project below \$HOME: ENOENT" "ENOENT" \
        "$(inside -- python3 -c "$TRY" 'open(p).read()' "$HOME/other-project/file")"
# The host directory that holds $HOME lies in /tmp, which is private inside: the write
# succeeds there and must not reach the host.
check "creating \$T_TMP/evil inside goes to the private /tmp" "OK:4" \
        "$(inside -- python3 -c "$TRY" "$create" "$T_TMP/evil")"
check "... and \$T_TMP/evil does not exist on the host" "absent" \
        "$([ -e "$T_TMP/evil" ] && echo present || echo absent)"
# A project outside /tmp and $HOME: its parent is the sealed read-only sandbox root.
check "control: a /var/tmp project is writable" "OK:4" \
        "$(inside --project-dir "$vt/proj" -- python3 -c "$TRY" "$create" "$vt/proj/f")"
check "creating a sibling of a /var/tmp project: EROFS" "EROFS" \
        "$(inside --project-dir "$vt/proj" -- python3 -c "$TRY" "$create" "$vt/sibling")"
check "... and nothing appeared next to the host project" "proj" "$(ls "$vt")"
