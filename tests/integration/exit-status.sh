#!/usr/bin/env bash
# Must still work: the command's exit status comes back unchanged; 128+N when it dies of signal
# N; 127 when the command does not exist, 126 when it cannot be executed; 125 for setup failures.
. "$(dirname "$0")/../lib/tap.sh"

printf 'not executable\n' > "$T_PROJECT/plain-file"
chmod 644 "$T_PROJECT/plain-file"

plan 9
run_sandboxed true
check "true: 0" "0" "$rc"
run_sandboxed sh -c 'exit 42'
check "exit 42: 42" "42" "$rc"
run_sandboxed sh -c 'exit 255'
check "exit 255: 255" "255" "$rc"
run_sandboxed sh -c 'kill -TERM $$'
check "kill -TERM self: 143" "143" "$rc"
run_sandboxed sh -c 'kill -KILL $$'
check "kill -KILL self: 137" "137" "$rc"
run_sandboxed no-such-command-cordon
check "nonexistent command: 127 with a message" \
        "127:cordon: failed to execute 'no-such-command-cordon': No such file or directory" "$rc:$out"
run_sandboxed ./plain-file
check "non-executable file: 126 with a message" \
        "126:cordon: failed to execute './plain-file': Permission denied" "$rc:$out"
# A missing --rw path (a missing --ro path is only a warning: a read-only grant of nothing).
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --rw /no/such/path -- true 2>&1); rc=$?
check "setup failure (missing --rw path): 125" "125" "$rc"
case $out in
*"/no/such/path"*) ok "the setup failure names the path" ;;
*) not_ok "the setup failure names the path" "output: $out" ;;
esac
