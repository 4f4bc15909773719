#!/usr/bin/env bash
# Attack: make an allowed parent itself the project (cwd /tmp, or --project-dir /var/tmp): the
# whole shared host /tmp, with other users' files and agent sockets, would be bound read-write.
# Like $HOME, an allowed parent is only a place for projects. Control: a directory below runs.
. "$(dirname "$0")/../lib/tap.sh"

secret=$(mktemp /tmp/cordon-host-secret.XXXXXX)
trap 'rm -f "$secret"' EXIT
echo "sh4red-tmp-s3cret" > "$secret"
chmod 644 "$secret"

# refused DESCRIPTION CWD [OPTIONS...]: exit 125 and the secret file stays out of reach.
refused() {
        local desc=$1 cwd=$2; shift 2
        local err rc
        err=$(cd "$cwd" && "$CORDON" run --quiet "$@" -- \
                sh -c 'cat "$1"; echo COMMAND-RAN' sh "$secret" 2>&1); rc=$?
        case "$rc:$err" in
        *sh4red-tmp-s3cret* | *COMMAND-RAN*) not_ok "$desc" "rc=$rc" "output: $err" ;;
        125:cordon:\ project\ directory*) ok "$desc" ;;
        *) not_ok "$desc" "rc=$rc" "output: $err" ;;
        esac
}

plan 5
# (Not $T_TMP itself: it contains $HOME, and a parent of the home directory is refused.)
mkdir -p "$T_TMP/below"
out=$(cd "$T_TMP/below" && "$CORDON" run --quiet -- sh -c 'cat "$1"' sh "$secret" 2>&1); rc=$?
check "control: a project below /tmp runs and does not see the host /tmp" \
        "1:cat: $secret: No such file or directory" "$rc:$out"
refused "working directory /tmp: 125" /tmp
refused "--project-dir /tmp: 125" "$T_PROJECT" --project-dir /tmp
refused "--project-dir /tmp/ (trailing slash): 125" "$T_PROJECT" --project-dir /tmp/
refused "--project-dir /var/tmp: 125" "$T_PROJECT" --project-dir /var/tmp
