#!/usr/bin/env bash
# `cordon policy show|intersect`: the canonical form on stdout with exit 0; a file that cannot be
# read or parsed is one "cordon: FILE: ..." line on stderr with exit 2, naming the key and JSON
# pointer; two policies with nothing in common exit 1; misuse is one line on stderr with exit 2.
# shellcheck disable=SC1091 # resolved at run time
. "$(dirname "$0")/../lib/tap.sh"

d=$T_TMP/policies
mkdir -p "$d"

# run ARGS...: $so, $se (stdout and stderr of cordon), $rc.
run() {
        so=$("$CORDON" "$@" 2>"$T_TMP/stderr"); rc=$?
        se=$(cat "$T_TMP/stderr")
}

# same_json DESCRIPTION EXPECTED-JSON: $so equals EXPECTED-JSON as data, with exit 0 and nothing
# on stderr.
same_json() {
        local verdict
        verdict=$(python3 -c 'import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print("same" if a == b else "differ")' "$so" "$2" 2>&1)
        if [ "$rc" = 0 ] && [ -z "$se" ] && [ "$verdict" = same ]; then
                ok "$1"
        else
                not_ok "$1" "rc=$rc (want 0)" "stdout: $so" "stderr: $se" "want: $2" "$verdict"
        fi
}

# fails DESCRIPTION STATUS EXACT-STDERR: exit STATUS, nothing on stdout, exactly that stderr line.
fails() {
        if [ "$rc" = "$2" ] && [ -z "$so" ] && [ "$se" = "$3" ]; then
                ok "$1"
        else
                not_ok "$1" "rc=$rc (want $2)" "stdout: $so" "stderr: $se" "want:   $3"
        fi
}

# usage_error DESCRIPTION EXPECTED-MESSAGE: exit 2, one line on stderr with the message and
# where the help is, nothing on stdout.
usage_error() {
        if [ "$rc" = 2 ] && [ -z "$so" ] && [[ $se == *"$2"*"; see 'cordon policy --help'" ]] &&
                [ "$(printf '%s\n' "$se" | wc -l)" = 1 ]; then
                ok "$1"
        else
                not_ok "$1" "rc=$rc (want 2)" "stdout: $so" "stderr: $se" "want in stderr: $2"
        fi
}

cat >"$d/parent.json" <<'EOF'
{
  "capabilities": {"workspace": ["read_text", "list", "exists"], "process": ["exec"]},
  "workspace_roots": ["/home/u"],
  "read_only_roots": ["/srv/ref"],
  "side_effect_level": "process_exec",
  "process_sandbox": {"presets": ["system_runtime", "user_temp"], "read_roots": ["/opt"]}
}
EOF
cat >"$d/child.json" <<'EOF'
{
  "capabilities": {"workspace": ["read_text", "write_text"]},
  "workspace_roots": ["/home/u/proj/", "/var/lib/other"],
  "sandbox_profile": "os_hardened",
  "side_effect_level": "network",
  "process_sandbox": {"read_roots": ["/opt/sdk", "/usr/share"], "write_roots": ["/tmp/cache"]}
}
EOF
printf '{"workspace_roots": ["/a"]}\n' >"$d/a.json"
printf '{"workspace_roots": ["/b"]}\n' >"$d/b.json"
printf '{"process_sandbox": {"presets": [], "extra": 1}}\n' >"$d/unknown-key.json"
printf '{"process_sandbox": {"read_roots": ["/x", "/y", "/a/../b"]}}\n' >"$d/dotdot.json"
printf '{\n  "sandbox_profile": "wasi",\n  "sandbox_profile": "wasi"\n}\n' >"$d/duplicate.json"
printf '{"sandbox_profile": "strict"}\n' >"$d/bad-profile.json"
python3 -c 'import sys; sys.stdout.write("{" + " " * (1024 * 1024) + "}")' >"$d/big.json"

plan 21

run policy show "$d/parent.json"
if [ "$rc" = 0 ] && [ "$so" = '{
  "capabilities": {
    "workspace": [
      "read_text",
      "list",
      "exists"
    ],
    "process": [
      "exec"
    ]
  },
  "workspace_roots": [
    "/home/u"
  ],
  "read_only_roots": [
    "/srv/ref"
  ],
  "sandbox_profile": "worktree",
  "side_effect_level": "process_exec",
  "process_sandbox": {
    "presets": [
      "system_runtime",
      "user_temp"
    ],
    "read_roots": [
      "/opt"
    ],
    "write_roots": []
  }
}' ]; then
        ok "show: the canonical text, every field explicit"
else
        not_ok "show: the canonical text, every field explicit" "rc=$rc" "stdout: $so" "stderr: $se"
fi

canon=$so
so=$(printf '%s\n' "$canon" | "$CORDON" policy show - 2>"$T_TMP/stderr"); rc=$?
check "show -: the canonical form is a fixed point" "0:$canon" "$rc:$so"

run policy intersect "$d/parent.json" "$d/child.json"
same_json "intersect: every field narrowed to the stricter side" '{
  "capabilities": {"workspace": ["read_text"], "process": []},
  "workspace_roots": ["/home/u/proj"],
  "read_only_roots": ["/srv/ref"],
  "sandbox_profile": "os_hardened",
  "side_effect_level": "process_exec",
  "process_sandbox": {"presets": ["system_runtime", "user_temp"], "read_roots": ["/opt/sdk"],
                      "write_roots": []}}'
first=$so

run policy intersect "$d/child.json" "$d/parent.json"
check "intersect: the order of the files does not matter" "0:$first" "$rc:$so"

so=$("$CORDON" policy intersect "$d/child.json" - <"$d/parent.json" 2>"$T_TMP/stderr"); rc=$?
check "intersect: '-' reads standard input" "0:$first" "$rc:$so"

printf '{"workspace_roots": ["/"], "capabilities": {}}\n' >"$d/wide.json"
run policy intersect "$d/wide.json" "$d/a.json"
same_json "intersect: no ceiling defers to the other side" '{
  "capabilities": null, "workspace_roots": ["/a"], "read_only_roots": [],
  "sandbox_profile": "worktree", "side_effect_level": null,
  "process_sandbox": {"presets": null, "read_roots": [], "write_roots": []}}'

run policy intersect "$d/a.json" "$d/b.json"
fails "intersect: nothing in common exits 1" 1 \
        "cordon: cannot intersect $d/a.json and $d/b.json: workspace_roots have no path in common: \"/a\" and \"/b\""

run policy show "$d/unknown-key.json"
fails "show: an unknown key, named with its pointer, exits 2" 2 \
        "cordon: $d/unknown-key.json: /process_sandbox/extra: unknown key \"extra\" (expected presets, read_roots or write_roots)"

run policy intersect "$d/a.json" "$d/dotdot.json"
fails "intersect: a root with '..' exits 2" 2 \
        "cordon: $d/dotdot.json: /process_sandbox/read_roots/2: \"..\" is not allowed in a root: \"/a/../b\""

run policy show "$d/bad-profile.json"
fails "show: an unknown profile exits 2" 2 \
        "cordon: $d/bad-profile.json: /sandbox_profile: unknown sandbox profile \"strict\" (expected unrestricted, worktree, wasi or os_hardened)"

run policy show "$d/duplicate.json"
case $rc:$se in
"2:cordon: $d/duplicate.json:3:19: duplicate object key"*) ok "show: a duplicate key exits 2, with line and column" ;;
*) not_ok "show: a duplicate key exits 2, with line and column" "rc=$rc" "stderr: $se" ;;
esac

run policy show "$d/big.json"
fails "show: a file over 1 MiB is refused" 2 \
        "cordon: $d/big.json: larger than 1048576 bytes (1 MiB)"

# Through a pipe, where there is no size to check first: the read itself is capped.
# shellcheck disable=SC2002 # the pipe is the point
so=$(cat "$d/big.json" | "$CORDON" policy show - 2>"$T_TMP/stderr"); rc=$?
se=$(cat "$T_TMP/stderr")
fails "show -: over 1 MiB through a pipe is refused too" 2 \
        "cordon: <stdin>: larger than 1048576 bytes (1 MiB)"

run policy show "$d/missing.json"
fails "show: a missing file exits 2" 2 "cordon: $d/missing.json: No such file or directory"

run policy show "$d"
fails "show: a directory exits 2" 2 "cordon: $d: Is a directory"

run policy --help
if [ "$rc" = 0 ] && [ -z "$se" ] && [[ $so == "Usage: cordon policy show FILE"*"intersect FILE1 FILE2"*--help* ]]; then
        ok "--help: usage on stdout, exit 0"
else
        not_ok "--help: usage on stdout, exit 0" "rc=$rc" "stdout: $so" "stderr: $se"
fi

run policy
usage_error "no subcommand" "cordon: no subcommand given"
run policy frob "$d/a.json"
usage_error "unknown subcommand" "cordon: unknown policy subcommand 'frob'"
run policy intersect "$d/a.json"
usage_error "intersect with one file" "cordon: 'intersect' takes two files"
run policy show --bogus "$d/a.json"
usage_error "unknown option" "cordon: unknown option '--bogus'"
run policy intersect - -
usage_error "standard input twice" "cordon: standard input can be read only once"
