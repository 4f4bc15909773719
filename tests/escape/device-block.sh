#!/usr/bin/env bash
# Attack: ask for the host's block devices (the disk behind /, swap, loop devices) with --device,
# to read or write the raw filesystem. Every block device must be refused with a warning and be
# absent inside. Control: each of them exists outside.
. "$(dirname "$0")/../lib/tap.sh"
shopt -s extglob

mapfile -t devs < <(find /dev -maxdepth 2 -type b 2>/dev/null | sort)
if [ ${#devs[@]} -eq 0 ]; then
        plan 1
        ok "this host has no block device nodes in /dev: nothing --device could expose"
        exit 0
fi

plan $(( ${#devs[@]} * 2 + 1 ))
check "control: the block devices exist outside" "${#devs[@]}" \
        "$(for d in "${devs[@]}"; do [ -b "$d" ] && echo "$d"; done | grep -c .)"
for d in "${devs[@]}"; do
        err=$(cd "$T_PROJECT" && "$CORDON" run --quiet --device "$d" -- \
                sh -c 'test -e "$1" && echo EXPOSED' sh "$d" 2>&1); rc=$?
        case "$rc:$err" in
        *EXPOSED*) not_ok "$d: absent inside" "rc=$rc" "output: $err" ;;
        *) ok "$d: absent inside (rc=$rc)" ;;
        esac
        case "$rc:$err" in
        "1:cordon: warning: DEVICES entry '$d' (from --device) is "@(a block device|shadowed by DEVICES_BLACKLIST entry)*"; not exposed")
                ok "$d: refused with a warning, the run goes on" ;;
        *) not_ok "$d: refused with a warning, the run goes on" \
                "rc=$rc (want 1: the test -e inside fails)" "output: $err" ;;
        esac
done
