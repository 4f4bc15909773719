#!/usr/bin/env bash
# Attack: $HOME points at a scratch directory (or is unset), and the account's real home (from
# the passwd database) is bound with --ro: its credential stores were visible, since only
# $HOME's were hidden. Control: an ordinary file of the account's home is readable.
# The test creates one store that does not exist yet (~/.password-store, never a real one) and
# one plain file in the account's home, and removes both; it skips when it cannot.
. "$(dirname "$0")/../lib/tap.sh"

acct=$(getent passwd "$(id -u)" | cut -d: -f6)
store=$acct/.password-store
plain=$acct/.cordon-escape-plain.$$
if [ -z "$acct" ] || [ "$acct" = "$HOME" ] || [ ! -w "$acct" ] || [ -e "$store" ]; then
        plan 1
        skip "the account's home '$acct' is not writable or already has $store" \
                "account home credential stores are hidden"
        exit 0
fi
trap 'rm -rf "$store" "$plain"' EXIT
mkdir -m 700 "$store" && echo "pass-h0me-acct" > "$store/site.gpg"
echo "plain-acct" > "$plain"

inside() { # inside ENV-ARGS... -- EXPR PATH
        local envs=()
        while [ "$1" != -- ]; do envs+=("$1"); shift; done
        shift
        (cd "$T_PROJECT" && env "${envs[@]}" "$CORDON" run --quiet --ro "$acct" -- \
                python3 -c "$TRY" "$@" 2>/dev/null)
}

plan 5
check "control: a plain file of the account's home is readable" "OK:plain-acct" \
        "$(inside HOME="$HOME" -- 'open(p).read()' "$plain")"
check "HOME elsewhere: the store lists empty" "OK:[]" \
        "$(inside HOME="$HOME" -- 'os.listdir(p)' "$store")"
check "HOME elsewhere: a file in it cannot be read (ENOENT)" "ENOENT" \
        "$(inside HOME="$HOME" -- 'open(p).read()' "$store/site.gpg")"
check "HOME unset: the store lists empty" "OK:[]" \
        "$(inside -u HOME -- 'os.listdir(p)' "$store")"
check "HOME unset: a file in it cannot be read (ENOENT)" "ENOENT" \
        "$(inside -u HOME -- 'open(p).read()' "$store/site.gpg")"
