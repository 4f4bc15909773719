#!/usr/bin/env bash
# Must still work: two sandboxes on the same project at the same time. Each waits until it sees
# the other's marker, so both can only succeed if they really overlap.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "no pid namespace and no private /tmp to tell sandboxes apart"

MEET='import os, sys, time
me, other = sys.argv[1], sys.argv[2]
open(me + ".started", "w").close()
for _ in range(200):
    if os.path.exists(other + ".started"):
        print(me + " met " + other + " as pid " + str(os.getpid()))
        sys.exit(0)
    time.sleep(0.05)
print(me + " waited in vain")
sys.exit(1)'

# in_background NAME CMD...: runs cordon in the project, output in $T_TMP/NAME.out, status in .rc
in_background() {
        local name=$1; shift
        (cd "$T_PROJECT" && "$CORDON" run --quiet -- "$@" >"$T_TMP/$name.out" 2>&1
         echo $? >"$T_TMP/$name.rc") &
}

plan 4
in_background a python3 -c "$MEET" a b
first=$!
in_background b python3 -c "$MEET" b a
second=$!
wait "$first" "$second"
check "first sandbox met the second" "0:a met b as pid 2" "$(cat "$T_TMP/a.rc"):$(cat "$T_TMP/a.out")"
check "second sandbox met the first" "0:b met a as pid 2" "$(cat "$T_TMP/b.rc"):$(cat "$T_TMP/b.out")"
# Each has its own /tmp and pid namespace: both shells are pid 2, under their own PID 1.
WHO='echo "$1" > /tmp/who; sleep 0.5; cat /tmp/who; echo $$'
in_background c sh -c "$WHO" sh one
c=$!
in_background d sh -c "$WHO" sh two
d=$!
wait "$c" "$d"
check "concurrent sandboxes have separate /tmp and pids (first)" "one 2" "$(paste -sd' ' "$T_TMP/c.out")"
check "concurrent sandboxes have separate /tmp and pids (second)" "two 2" "$(paste -sd' ' "$T_TMP/d.out")"
