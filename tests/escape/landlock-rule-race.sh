#!/usr/bin/env bash
# Attack (landlock backend): a concurrent writer of the project swaps a directory on a rule's path
# for a symlink to $HOME while sandboxes start. The project holds a masked file, so its grant is
# carved into grants on the entries below, one of them sub/.ssh; with the swap, a rule path that
# is re-resolved after planning lands on $HOME/.ssh. Expected: no start ever reads the key or
# writes into $HOME/.ssh (a start may be refused, exit 125). Control: the same command reads the
# key with --profile unrestricted, and without the racer a start succeeds.
. "$(dirname "$0")/../lib/tap.sh"

starts=${RACE_STARTS:-300}
budget=${RACE_SECONDS:-60}

mkdir -p "$T_PROJECT/sub/.ssh" "$HOME/.ssh"
chmod 700 "$HOME/.ssh"
echo "RACE-PRIVATE-KEY" > "$HOME/.ssh/id"
echo "project key dir" > "$T_PROJECT/sub/.ssh/readme"
echo "masked" > "$T_PROJECT/sub/secret"
ln -s "$HOME" "$T_PROJECT/swap"

# Tries to read the key and to write next to it; prints what it got.
probe='cat "$1" 2>/dev/null; { : > "$2"; } 2>/dev/null && echo WROTE; exit 0'
start() {
        local o r
        o=$(cd "$T_PROJECT" && "$CORDON" run --quiet --backend landlock --mask "$T_PROJECT/sub/secret" \
                "$@" -- sh -c "$probe" sh "$HOME/.ssh/id" "$HOME/.ssh/pwned" 2>&1)
        r=$?
        printf '%s\n' "$o" | drop_net_fallback
        return $r
}

# renameat2(RENAME_EXCHANGE) in a loop: sub and swap (the symlink) trade places atomically.
RACER='import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
nr = {"x86_64": 316, "aarch64": 276}[os.uname().machine]
a, b = sys.argv[1].encode(), sys.argv[2].encode()
while True:
    libc.syscall(nr, -100, a, -100, b, 2)'

plan 6
check "control: with --profile unrestricted the key is readable" "RACE-PRIVATE-KEY" \
        "$(start --profile unrestricted | grep -o RACE-PRIVATE-KEY)"
rm -f "$HOME/.ssh/pwned"
check "control: without the racer a start succeeds and is confined" "" "$(start)"

python3 -c "$RACER" "$T_PROJECT/sub" "$T_PROJECT/swap" &
racer=$!
read_key=0 wrote=0 refused=0 ran=0 end=$((SECONDS + budget))
for ((i = 0; i < starts && SECONDS < end; i++)); do
        out=$(start); rc=$?
        ran=$((ran + 1))
        case $out in *RACE-PRIVATE-KEY*) read_key=$((read_key + 1)) ;; esac
        case $out in *WROTE*) wrote=$((wrote + 1)) ;; esac
        [ $rc -eq 125 ] && refused=$((refused + 1))
done
racing=no
kill "$racer" 2>/dev/null && racing=yes
wait "$racer" 2>/dev/null
echo "# $ran starts: $refused refused, $read_key read the key, $wrote wrote into ~/.ssh"

check "no start read \$HOME/.ssh/id" "0" "$read_key"
check "no start wrote into \$HOME/.ssh" "0 absent" \
        "$wrote $([ -e "$HOME/.ssh/pwned" ] && echo present || echo absent)"
check "the starts ran" "yes" "$([ "$ran" -gt 0 ] && echo yes || echo no)"
check "the racer ran until the end" "yes" "$racing"
