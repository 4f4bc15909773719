#!/usr/bin/env bash
# Attack: with --home-access read the whole home is bound, and a capability policy's default
# presets bound ~/.config, ~/.netrc, ~/.npmrc, ~/.pypirc and cargo credentials; only .ssh, .aws
# and .gnupg were hidden. Every common credential store must read as empty now.
# Control: a plain file next to them is readable; naming ~/.netrc as a policy read root hands
# it over; the banner names the presets.
. "$(dirname "$0")/../lib/tap.sh"

dirs=(.config/gh .config/gcloud .azure .kube .docker .password-store .local/share/keyrings)
files=(.git-credentials .netrc .npmrc .pypirc .cargo/credentials.toml .vault-token .pgpass)
for d in "${dirs[@]}"; do mkdir -p "$HOME/$d" && echo "TOKEN-cr3d" > "$HOME/$d/secret"; done
for f in "${files[@]}"; do mkdir -p "$(dirname "$HOME/$f")" && echo "TOKEN-cr3d" > "$HOME/$f"; done
mkdir -p "$HOME/.config/tool" && echo "tool-settings" > "$HOME/.config/tool/settings"

# Prints one line per store: what a read of it gives inside.
probe='import os, sys
for p in sys.argv[1:]:
    try:
        if os.path.isdir(p):
            print(p, "dir", os.listdir(p))
        else:
            print(p, "file", repr(open(p).read()))
    except OSError as e:
        print(p, "error", e.errno)'
paths=()
for d in "${dirs[@]}"; do paths+=("$HOME/$d"); done
for f in "${files[@]}"; do paths+=("$HOME/$f"); done

# hidden OUTPUT: how many stores read as empty or missing (all ${#paths[@]} when none leaks).
hidden() { grep -v '/.config/tool/' <<<"$1" | grep -cE "( dir \[\]| file ''| error 2)\$"; }

plan 6
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --home-access read -- \
        python3 -c "$probe" "${paths[@]}" "$HOME/.config/tool/settings" 2>&1)
check "--home-access read: every credential store is empty or missing" "${#paths[@]}" \
        "$(hidden "$out")"
check "control: the plain file next to them is readable" "1" \
        "$(grep '/.config/tool/settings' <<<"$out" | grep -c 'tool-settings')"

policy=$T_TMP/policy.json
printf '{"workspace_roots": ["%s"]}\n' "$T_PROJECT" > "$policy"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --policy "$policy" -- \
        python3 -c "$probe" "${paths[@]}" 2>&1)
check "policy with the default presets: every credential store is empty or missing" \
        "${#paths[@]}" "$(hidden "$out")"
check "... ~/.netrc in particular is not there" "1" \
        "$(grep -c "^$HOME/.netrc error 2\$\|^$HOME/.netrc file ''\$" <<<"$out")"

printf '{"workspace_roots": ["%s"], "process_sandbox": {"read_roots": ["%s/.netrc"]}}\n' \
        "$T_PROJECT" "$HOME" > "$policy"
check "control: a policy naming ~/.netrc as a read root hands it over" "OK:TOKEN-cr3d" \
        "$(cd "$T_PROJECT" && "$CORDON" run --quiet --policy "$policy" -- \
                python3 -c "$TRY" 'open(p).read()' "$HOME/.netrc" 2>/dev/null)"
banner=$(cd "$T_PROJECT" && "$CORDON" run --policy "$policy" -- true 2>&1 | grep '^cordon: backend=')
check "the banner names the presets" "1" \
        "$(grep -c 'presets=system_runtime,developer_toolchains,package_manager_config,user_temp' <<<"$banner")"
