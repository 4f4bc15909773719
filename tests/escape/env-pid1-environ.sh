#!/usr/bin/env bash
# Attack: recover blocked variables from another process of the sandbox: /proc/1/environ (cordon's
# init started with the full environment), /proc/1/mem, ptrace(PID 1), every /proc/*/environ.
# Control: outside, a process's /proc/PID/environ shows the secret.
. "$(dirname "$0")/../lib/tap.sh"

PTRACE='import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
print("OK" if libc.ptrace(16, 1, 0, 0) == 0 else errno.errorcode[ctypes.get_errno()])'
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet -- python3 -c "$TRY" "$@" 2>&1); }
export GITHUB_TOKEN=p1d1-env-s3cret AWS_SECRET_ACCESS_KEY=p1d1-env-s3cret-aws

plan 6
check "control: /proc/self/environ shows the token outside" "OK:True" \
        "$(python3 -c "$TRY" '"p1d1-env-s3cret" in open("/proc/self/environ").read()' 2>&1)"
check "/proc/1/environ: EACCES" "EACCES" "$(inside 'open("/proc/1/environ", "rb").read()')"
check "/proc/1/mem: EACCES" "EACCES" "$(inside 'open("/proc/1/mem", "rb")')"
run_sandboxed python3 -c "$PTRACE"
check "ptrace(PTRACE_ATTACH, 1): EPERM" "EPERM" "$out"
run_sandboxed sh -c 'for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do cat "$f"; done 2>/dev/null |
        tr "\0" "\n"'
case $out in
*p1d1-env-s3cret*) not_ok "no readable /proc/*/environ or cmdline holds the secret" \
        "$(printf '%s\n' "$out" | grep p1d1)" ;;
*) ok "no readable /proc/*/environ or cmdline holds the secret" ;;
esac
run_sandboxed sh -c 'sleep 5 & grep -c . /proc/$!/environ; kill $!'
case $out in
[1-9]*) ok "control: the command's own child's environ is readable inside" ;;
*) not_ok "control: the command's own child's environ is readable inside" "output: $out" ;;
esac
