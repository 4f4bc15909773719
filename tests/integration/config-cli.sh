#!/usr/bin/env bash
# `cordon config show|explain` and the configuration origins of `cordon run --dry-run`: every
# registry variable with its value and origin (text and JSON), explain of a key (its layer, or
# the environment variable that set it) and of a path (every rule that touches it in mount
# order and the one that wins: ~/.ssh is masked by default), usage errors with exit 2. Then a
# user sandbox.conf and a conf.d file in the scratch HOME: their origins (FILE:LINE, the layer)
# must appear in show, explain and the dry run, and the environment must win over them.
# shellcheck disable=SC1091 # resolved at run time
. "$(dirname "$0")/../lib/tap.sh"

cd "$T_PROJECT" || exit 1
# run ARGS...: $so, $se (stdout and stderr of cordon), $rc.
run() {
        so=$("$CORDON" "$@" 2>"$T_TMP/stderr"); rc=$?
        se=$(cat "$T_TMP/stderr")
}
# has DESCRIPTION TEXT NEEDLE...: every NEEDLE is in TEXT.
has() {
        local d=$1 text=$2 n
        shift 2
        for n in "$@"; do
                case $text in
                *"$n"*) ;;
                *) not_ok "$d" "missing: $n" "in: $(printf '%s\n' "$text" | head -40)"; return ;;
                esac
        done
        ok "$d"
}
# json PROGRAM: runs python3 PROGRAM with the JSON of `config show --json` ($so) as `d`; prints
# what it prints, or "invalid JSON: ...".
json() {
        printf '%s' "$so" | python3 -c 'import json, sys
try:
    d = json.load(sys.stdin)
except ValueError as e:
    print("invalid JSON: %s" % e); sys.exit(0)
'"$1" 2>&1
}

plan 30

# ---- with no configuration file ----
run config show
check "config show exits 0" 0 "$rc"
has "config show prints variables with values and origins" "$so" \
        "configuration files read" "HOME_ACCESS" "tmpwrite" "built-in default" "admin rules changed"

run config show --json
check "config show --json exits 0" 0 "$rc"
verdict=$(json '
ok = set(d) == {"files", "variables", "admin_changes"} and isinstance(d["files"], list)
for name, v in d["variables"].items():
    if "items" in v:
        ok = ok and all(set(i) == {"value", "origin"} for i in v["items"])
    else:
        ok = ok and set(v) == {"value", "origin"}
ok = ok and d["variables"]["HOME_ACCESS"] == {"value": "tmpwrite", "origin": "built-in default"}
ok = ok and {"value": "/usr", "origin": "built-in default"} in d["variables"]["READONLY_MOUNTS"]["items"]
print("good" if ok else "bad shape: %r" % d)')
check "config show --json: the documented shape, HOME_ACCESS and READONLY_MOUNTS with origins" good "$verdict"
# Every variable of the text output is in the JSON, and the other way round.
names_text=$("$CORDON" config show | sed -n 's/^  \([A-Z][A-Z0-9_]*\) .*/\1/p' | sort)
names_json=$(json 'print("\n".join(sorted(d["variables"])))')
check "config show lists the same variables as text and as JSON" "$names_json" "$names_text"
# The documentation has a row for every variable.
missing=""
for n in $names_json; do grep -q "^\\.B $n\$" "$T_SRC/man/cordon-config.5" 2>/dev/null || missing+=" $n"; done
check "cordon-config(5) documents every variable (missing:$missing)" "" "$missing"

run config explain HOME_ACCESS
check "config explain KEY exits 0" 0 "$rc"
has "config explain KEY names the value and its origin" "$so" "HOME_ACCESS=tmpwrite" \
        "set by the built-in default" "admin rules"

so=$(SANDBOX_QUIET=true "$CORDON" config explain SANDBOX_QUIET 2>&1)
has "config explain KEY names the environment variable that set it" "$so" \
        "SANDBOX_QUIET=true" "the environment variable SANDBOX_QUIET"

run config explain BLOCKED_ENV_PATTERNS
has "config explain of a list prints its items with origins" "$so" "a list of" "SSH_*" "built-in default"

mkdir -p "$HOME/.ssh"
run config explain "~/.ssh"
check "config explain ~/.ssh exits 0" 0 "$rc"
if printf '%s\n' "$so" | grep -qE "masked +$HOME/\\.ssh +\\[this path\\].*-> wins" &&
        printf '%s\n' "$so" | grep -qE "tmpfs +$HOME +\\[above it\\].*covered by" &&
        printf '%s\n' "$so" | grep -q "^result: #[0-9]* wins: absent: hidden, the sandbox sees no such file or directory$"; then
        ok "config explain ~/.ssh: the home's tmpfs is covered, the mask over ~/.ssh wins"
else
        not_ok "config explain ~/.ssh: the home's tmpfs is covered, the mask over ~/.ssh wins" "$so" "$se"
fi
# What explain says is what a command gets: absent under the ns backend (the home is a tmpfs:
# there is nothing to mask), opening it refused under the landlock backend, as its note says.
got=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated -- python3 -c 'import errno, os
try:
    os.listdir(os.path.expanduser("~/.ssh"))
    print("visible")
except OSError as e:
    print(errno.errorcode[e.errno])' 2>&1)
note=no
printf '%s\n' "$so" | grep -q "the landlock backend .*a hidden path stays in place and opening it is refused with EACCES)$" && note=yes
check "config explain ~/.ssh: absent as a run finds it ($(on_backend ENOENT EACCES)), the landlock note" \
        "$(on_backend ENOENT EACCES):yes" "$got:$note"
run config explain .
has "config explain . names the project's read-write bind as the winner" "$so" \
        "$T_PROJECT: " "rw" "[this path]" "wins: read-write"
mkdir -p "$HOME/src/lib"
run config explain "~/src/lib"
has "config explain of a path in the scratch home names HOME_ACCESS and the flag that shows it" \
        "$so" "[above it]" "wins: inside an empty writable tmpfs" "setting: HOME_ACCESS=tmpwrite" \
        "to show it: --ro ~/src/lib"
run config explain /usr/bin/env
has "config explain of a path below a bind names the bind above it" "$so" \
        "/usr  " "[above it]" "wins: read-only, the host's /usr/bin/env"
case $so in
*"to show it"* | *"to lift"* | *"setting:"*) not_ok "config explain of a system path offers no fix" "$so" ;;
*) ok "config explain of a system path offers no fix" ;;
esac

run config explain NO_SUCH_VARIABLE
check "config explain of an unknown key exits 2" 2 "$rc"
has "config explain of an unknown key says so" "$se" "unknown variable 'NO_SUCH_VARIABLE'"
run config explain
check "config explain without an operand exits 2" 2 "$rc"
run config frobnicate
check "an unknown config subcommand exits 2" 2 "$rc"
run config --help
has "config --help lists the subcommands and options on stdout" "$so" "show" "explain" "--json" \
        "--project-dir"

run run --dry-run --ro /usr/share -- true
check "run --dry-run exits 0" 0 "$rc"
has "run --dry-run includes the configuration's origins" "$so" "configuration files read" \
        "settings not at their built-in default:" "READONLY_MOUNTS += /usr/share  (from --ro)" \
        "admin rules changed"

# ---- a user sandbox.conf and a conf.d file ----
conf=$HOME/.config/cordon
mkdir -p "$conf/conf.d"
printf 'HOME_ACCESS=read\nSANDBOX_QUIET=false\n' >"$conf/sandbox.conf"
printf 'READONLY_MOUNTS+=("/usr/share")\n' >"$conf/conf.d/10-extra.conf"
run config show --json
files=$(json 'print(" ".join("%s:%s" % (f["layer"], f["path"]) for f in d["files"]))')
check "show --json lists the user file and the conf.d file with their layers" \
        "user:$conf/sandbox.conf conf.d:$conf/conf.d/10-extra.conf" "$files"
check "show --json: a value from the user file has its FILE:LINE origin" \
        "read $conf/sandbox.conf:1" \
        "$(json 'v = d["variables"]["HOME_ACCESS"]; print(v["value"], v["origin"])')"
check "show --json: a list item from conf.d has its FILE:LINE origin" \
        "$conf/conf.d/10-extra.conf:1" \
        "$(json 'print(" ".join(i["origin"] for i in d["variables"]["READONLY_MOUNTS"]["items"] if i["value"] == "/usr/share"))')"
so=$(SANDBOX_QUIET=true "$CORDON" config show --json 2>&1)
check "the environment wins over the user file" "true env SANDBOX_QUIET" \
        "$(json 'v = d["variables"]["SANDBOX_QUIET"]; print(v["value"], v["origin"])')"
run config explain HOME_ACCESS
has "explain names the line, the file and the user layer" "$so" "HOME_ACCESS=read" \
        "line 1 of $conf/sandbox.conf (the user layer)"
run run --dry-run -- true
has "run --dry-run names the files read and the value's FILE:LINE" "$so" \
        "user    $conf/sandbox.conf" "conf.d  $conf/conf.d/10-extra.conf" \
        "HOME_ACCESS=read  (from $conf/sandbox.conf:1)"
