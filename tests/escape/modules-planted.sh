#!/usr/bin/env bash
# Attack: a module file planted in a MODULEPATH directory a sandbox can write (~/modulefiles,
# with HOME_ACCESS=write or a project of the home) is code that cordon ran on the host,
# unconfined, at the next start with SANDBOX_MODULES (issue 22): it writes a marker in $HOME and
# in /tmp and connects to a service on the host's 127.0.0.1. Expected: Lmod runs confined
# (nothing writable, no network, only the system, Lmod and the MODULEPATH directories to read):
# each attempt fails with its errno (the ns backend: EROFS, its read-only view has neither
# $HOME nor /tmp, and ECONNREFUSED for the connection, which reaches the isolated network
# namespace's own loopback, not the host's; the landlock
# backend: EACCES, and EPERM from seccomp), the module still loads (its *_ROOT, carried, says what it
# saw), and nothing reached the host. Controls: the same writes and the connection work
# outside, and a module of the same directory loads and its tool runs. Lmod is the stand-in of
# tests/fixtures/lmod (root's, as cordon requires of an init it sources).
. "$(dirname "$0")/../lib/tap.sh"

init=$T_SRC/tests/fixtures/lmod/init.sh
if [ "$(stat -c %u "$init")" != 0 ]; then
        echo "1..0 # SKIP the fixtures are not root's (run the suite as root)"
        exit 0
fi
plan 8

# The host service: records every connection it accepts.
LISTEN='import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept()
    open(sys.argv[2], "a").write("connected\n")
    c.close()'
python3 -c "$LISTEN" "$T_TMP/port" "$T_TMP/connected" 2>/dev/null &
server=$!
trap 'kill "$server" 2>/dev/null' EXIT
for _ in $(seq 100); do [ -e "$T_TMP/port" ] && break; sleep 0.05; done
port=$(cat "$T_TMP/port")
CONNECT='import socket, sys
s = socket.socket()
s.settimeout(5)
s.connect(("127.0.0.1", int(sys.argv[-1])))
s.close()'

# What an earlier sandbox left in ~/modulefiles: a module that tries its writes and its
# connection and reports each errno in EVIL_ROOT, which cordon carries into the sandbox.
home_marker=$HOME/planted-by-module tmp_marker=/tmp/planted-by-module.$$
mkdir -p "$HOME/modulefiles/evil"
cat >"$HOME/modulefiles/evil/1.sh" <<MOD
try() { python3 -c '$TRY' "\$@" 2>&1 | tail -1; }
export EVIL_ROOT="home=\$(try 'open(p, "w").write("x")' $home_marker) tmp=\$(try 'open(p, "w").write("x")' $tmp_marker) net=\$(try 'exec(sys.argv[3])' - '$CONNECT' $port)"
MOD
export MODULEPATH=$HOME/modulefiles CORDON_TEST_MOD=$T_TMP/modtool
mkdir -p "$CORDON_TEST_MOD/bin"
printf '#!/bin/sh\necho tool-from-module\n' >"$CORDON_TEST_MOD/bin/modtool"; chmod 755 "$CORDON_TEST_MOD/bin/modtool"
run() { out=$(cd "$T_PROJECT" && CORDON_LMOD_INIT="$init" "$CORDON" run --quiet --net isolated \
        --ro "$CORDON_TEST_MOD" "$@" 2>&1); rc=$?; }

check "control: outside, the module's writes and connection work" "OK:1 OK:1 OK:None" \
        "$(python3 -c "$TRY" 'open(p, "w").write("x")' "$T_TMP/w1") $(python3 -c "$TRY" 'open(p, "w").write("x")' "$T_TMP/w2") $(python3 -c "$TRY" 'exec(sys.argv[3])' - "$CONNECT" "$port")"
rm -f "$T_TMP/connected"
run --set SANDBOX_MODULES=evil/1 -- sh -c 'echo "$EVIL_ROOT"'
# The child's backend is the one `auto` picks, whatever the suite's SANDBOX_BACKEND.
expected="home=EACCES tmp=EACCES net=EPERM"
case $("$CORDON" doctor --backend auto 2>/dev/null | head -1) in
"backend: ns "*) expected="home=EROFS tmp=EROFS net=ECONNREFUSED" ;;
esac
check "a planted module runs confined: its writes and its connection fail" "0:$expected" "$rc:$out"
check "... no marker in \$HOME on the host" absent "$([ -e "$home_marker" ] && echo present || echo absent)"
check "... no marker in /tmp on the host" absent "$([ -e "$tmp_marker" ] && echo present || echo absent)"
check "... and the host service saw no connection" none "$(cat "$T_TMP/connected" 2>/dev/null || echo none)"
rm -f "$home_marker" "$tmp_marker"
run --set SANDBOX_MODULES=tool/1.0 -- modtool
check "control: a module loads and its tool runs" "0:tool-from-module" "$rc:$out"
run --set SANDBOX_MODULES=nosuch/1 -- true
check "control: a module that does not load still refuses the start" 125 "$rc"
# A MODULEPATH directory that holds the home would show the modules the user's keys, which a
# planted module could print into the sandbox's environment: refused, naming it.
out=$(cd "$T_PROJECT" && MODULEPATH="$HOME/modulefiles:$HOME" CORDON_LMOD_INIT="$init" "$CORDON" run \
        --quiet --net isolated --set SANDBOX_MODULES=evil/1 -- true 2>&1); rc=$?
if [ $rc = 125 ] && [[ $out == *"SANDBOX_MODULES: MODULEPATH names '$HOME', which holds the home directory"* ]]; then
        ok "a MODULEPATH entry holding the home refuses the start, naming it"
else
        not_ok "a MODULEPATH entry holding the home refuses the start, naming it" "rc=$rc" "$out"
fi
