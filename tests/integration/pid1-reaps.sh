#!/usr/bin/env bash
# PID 1 of the sandbox reaps orphans: a child whose parent exits is re-parented to PID 1 and
# must not stay a zombie. Control: the orphan really was re-parented to PID 1 while it ran.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "no pid namespace and no PID 1 of cordon's"

plan 3
run_sandboxed sh -c '
sh -c "sleep 0.3 & echo \$! > /tmp/orphan" ; sleep 0.1
echo "ppid=$(sed -n "s/^PPid:[[:space:]]*//p" /proc/$(cat /tmp/orphan)/status)"
sleep 0.6
state=$(sed -n "s/^State:[[:space:]]*\([A-Z]\).*/\1/p" /proc/$(cat /tmp/orphan)/status 2>/dev/null)
echo "after=${state:-gone}"
echo "pid1=$(cat /proc/1/comm)"'
check "control: the orphan was re-parented to PID 1" "ppid=1" "$(printf '%s\n' "$out" | grep '^ppid=')"
check "the exited orphan was reaped (no zombie left)" "after=gone" "$(printf '%s\n' "$out" | grep '^after=')"
check "PID 1 is cordon's init" "pid1=cordon" "$(printf '%s\n' "$out" | grep '^pid1=')"
