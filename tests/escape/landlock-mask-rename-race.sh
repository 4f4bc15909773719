#!/usr/bin/env bash
# Attack (landlock backend): a concurrent writer of the project (an earlier sandbox with other
# masks, a process of the host) swaps the masked directory's parent c with e, a symlink to c,
# while sandboxes start (renameat2 RENAME_EXCHANGE): the masked path c/d names the secret or
# leads into a symlink loop, never anything else, and e/d reaches it whenever c is a directory.
# Carving decides by name what to grant, and a swap between resolving the mask and opening the
# rules gave the name e, and the whole of c with the masked d in it, a full grant. Expected: no
# start ever reads the secret (a start may be refused, exit 125): prepare() refuses a rule on an
# object on the way to a mask and a mask no longer below what planning found on the way to it,
# and resolving refuses a --hide path in a symlink loop. Control: with --profile unrestricted the
# secret is readable, and without the racer a start succeeds and is confined.
. "$(dirname "$0")/../lib/tap.sh"

starts=${RACE_STARTS:-300}
budget=${RACE_SECONDS:-60}

P=$T_PROJECT
mkdir -p "$P/c/d"
echo "MASKED-s3cr3t" > "$P/c/d/secret"
ln -s c "$P/e"

# Reads the secret under both names, whichever holds it now.
probe='cat "$1/c/d/secret" "$1/e/d/secret" 2>/dev/null; exit 0'
start() {
        local o r
        o=$(cd "$P" && "$CORDON" run --quiet --backend landlock --hide "$P/c/d" "$@" -- \
                sh -c "$probe" sh "$P" 2>&1)
        r=$?
        printf '%s\n' "$o" | drop_net_fallback
        return $r
}

RACER='import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
nr = {"x86_64": 316, "aarch64": 276}[os.uname().machine]
a, b = sys.argv[1].encode(), sys.argv[2].encode()
while True:
    libc.syscall(nr, -100, a, -100, b, 2)'

plan 5
check "control: with --profile unrestricted the masked file is readable" "yes" \
        "$(start --profile unrestricted | grep -q MASKED-s3cr3t && echo yes || echo no)"
check "control: without the racer a start succeeds and is confined" "0:" \
        "$(out=$(start); echo "$?:$out")"

python3 -c "$RACER" "$P/c" "$P/e" &
racer=$!
leaked=0 refused=0 ran=0 end=$((SECONDS + budget))
for ((i = 0; i < starts && SECONDS < end; i++)); do
        out=$(start); rc=$?
        ran=$((ran + 1))
        case $out in *MASKED-s3cr3t*) leaked=$((leaked + 1)) ;; esac
        [ $rc -eq 125 ] && refused=$((refused + 1))
done
racing=no
kill "$racer" 2>/dev/null && racing=yes
wait "$racer" 2>/dev/null
echo "# $ran starts: $refused refused, $leaked read the masked file"

check "no start read the masked file" "0" "$leaked"
check "the starts ran" "yes" "$([ "$ran" -gt 0 ] && echo yes || echo no)"
check "the racer ran until the end" "yes" "$racing"
