#!/usr/bin/env bash
# Attack: in a mode other than write, a writable bind that would hold a missing credential store
# (--rw ~/.config for ~/.config/gh/hosts.yml, a HOME_WRITABLE ~/.cargo for credentials.toml)
# lets the sandbox create the store on the host, where gh and cargo trust it later. Expected, on
# both backends: creating it fails (EROFS under ns, EACCES under landlock) and nothing is left
# on the host. Control: an existing entry of the same directory stays writable.
. "$(dirname "$0")/../lib/tap.sh"

mkdir -p "$HOME/.config/tool" "$HOME/.cargo/registry"
plant='os.makedirs(p)'
write='open(p, "w").write("token")'
run() { # run BACKEND EXPR PATH FLAGS...
        local b=$1 e=$2 path=$3
        shift 3
        (cd "$T_PROJECT" && "$CORDON" run --quiet --backend "$b" "$@" -- \
                python3 -c "$TRY" "$e" "$path" 2>/dev/null)
}

plan 10
for b in ns landlock; do
        x=$([ $b = ns ] && echo EROFS || echo EACCES)
        check "$b, --rw ~/.config: creating ~/.config/gh: $x" "$x" \
                "$(run $b "$plant" "$HOME/.config/gh" --rw "$HOME/.config")"
        check "$b, --rw ~/.config: control: ~/.config/tool/f" "OK:5" \
                "$(run $b "$write" "$HOME/.config/tool/f" --rw "$HOME/.config")"
        check "$b, read mode, HOME_WRITABLE .cargo: creating credentials.toml: $x" "$x" \
                "$(run $b "$write" "$HOME/.cargo/credentials.toml" --home-access read \
                        --set HOME_WRITABLE=.cargo)"
        check "$b, read mode, HOME_WRITABLE .cargo: control: ~/.cargo/registry/f" "OK:5" \
                "$(run $b "$write" "$HOME/.cargo/registry/f" --home-access read \
                        --set HOME_WRITABLE=.cargo)"
done
check "no store was created on the host" "absent" \
        "$([ -e "$HOME/.config/gh" ] || [ -e "$HOME/.cargo/credentials.toml" ] && echo present ||
                echo absent)"
check "control: with --profile unrestricted under landlock ~/.config/gh can be created" "OK:None" \
        "$(run landlock "$plant" "$HOME/.config/gh" --profile unrestricted --rw "$HOME/.config")"
