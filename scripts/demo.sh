#!/usr/bin/env bash
# A short demonstration of a confined shell: a throwaway home with an SSH key and a project,
# then one sandboxed shell that tries to read the key, write outside the project, reach the
# network (the default mode, filtered, or proxied where pasta cannot run for this user, as the
# banner says: the web works, cloud metadata and mail do not), and write the project.
set -u
cordon=$(realpath "${1:?usage: demo.sh PATH_TO_CORDON}")
# A real outside host to fetch: the Debian mirror apt is set up with here (the only kind of host
# these machines reach), else a reserved example name, whose fetch then fails.
mirror=$("$(dirname "$0")/apt-mirror.sh") || mirror=https://example.com
mirror_host=${mirror#*://}
mirror_host=${mirror_host%%/*}
export mirror mirror_host
demo=$(mktemp -d /tmp/cordon-demo.XXXXXX)
trap 'rm -rf "$demo"' EXIT
mkdir -p "$demo/home/.ssh" "$demo/home/project"
echo "-----BEGIN DEMO PRIVATE KEY-----" > "$demo/home/.ssh/id_ed25519"
echo "outside" > "$demo/home/notes.txt"
export HOME="$demo/home" GITHUB_TOKEN=ghp_demo_secret
cd "$demo/home/project"
try() { printf '  %-44s' "$1"; shift; if out=$("$@" 2>&1); then echo "allowed ${out:+($out)}"; else echo "denied: ${out##*: }"; fi; }
export -f try
echo "cordon demo: a shell confined to $PWD"
"$cordon" run -- bash -c '
try "read ~/.ssh/id_ed25519"            cat ~/.ssh/id_ed25519
try "see ~/notes.txt (home is a tmpfs)"  cat ~/notes.txt
try "write /usr/local/evil"              touch /usr/local/evil
try "write ../escaped (home is throwaway)" touch ../escaped
try "fetch $mirror/"                      curl -sS -m 10 -o /dev/null -w "HTTP %{http_code}" "$mirror/"
try "reach cloud metadata 169.254.169.254" timeout 3 bash -c "exec 3<>/dev/tcp/169.254.169.254/80"
try "SMTP to $mirror_host:25"             timeout 3 bash -c "exec 3<>/dev/tcp/$mirror_host/25"
try "run sendmail"                         sendmail -t
try "read \$GITHUB_TOKEN"                 printenv GITHUB_TOKEN
try "write the project"                  bash -c "echo hello > result.txt && cat result.txt"
'
status=$?
printf '\nback outside: project has %s; ../escaped exists: %s\n' \
        "$(ls "$demo/home/project" | tr '\n' ' ')" "$([ -e "$demo/home/escaped" ] && echo yes || echo no)"
exit $status
