#!/usr/bin/env bash
# Must work with no flags: programs installed in the home are found and run, from the PATH
# directories below the home (npm's user prefix with its bin link into lib/node_modules, an nvm
# version, ~/.local/bin with pip's user site and a pipx venv, pyenv's shims, cargo, go); the
# credential store beside them stays out; --dry-run and config explain give the origin PATH; a
# command the sandbox does not show says where it is on the host and which option shows it.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated "$@" 2>&1); }
exe() { mkdir -p "$(dirname "$1")" && printf '%s\n' "$2" > "$1" && chmod 755 "$1"; }

# npm's user prefix: bin/fakeagent -> ../lib/node_modules/fakeagent/cli.js, which needs its
# package's files and its dependency.
pkg=$HOME/.npm-global/lib/node_modules/fakeagent
exe "$pkg/cli.js" '#!/usr/bin/env node
console.log("agent " + require("./version.js") + " " + require("dep"));'
echo 'module.exports = "1.2.3";' > "$pkg/version.js"
mkdir -p "$pkg/node_modules/dep" "$HOME/.npm-global/bin"
echo 'module.exports = "with-dep";' > "$pkg/node_modules/dep/index.js"
ln -s ../lib/node_modules/fakeagent/cli.js "$HOME/.npm-global/bin/fakeagent"
# nvm: its version's bin, and nvm.sh beside the versions.
nvmv=$HOME/.nvm/versions/node/v22.0.0
exe "$nvmv/bin/fakenode" '#!/bin/sh
cat "$(dirname "$0")/../lib/node_modules/npm/marker"'
mkdir -p "$nvmv/lib/node_modules/npm"
echo "nvm-node" > "$nvmv/lib/node_modules/npm/marker"
echo "nvm() { :; }" > "$HOME/.nvm/nvm.sh"
# ~/.local/bin: a pip --user script importing from the user site, and a pipx venv's link.
pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
exe "$HOME/.local/bin/pyuser" '#!/usr/bin/python3
import pyusermod
print(pyusermod.X)'
mkdir -p "$HOME/.local/lib/python$pyver/site-packages"
echo 'X = "user-site"' > "$HOME/.local/lib/python$pyver/site-packages/pyusermod.py"
venv=$HOME/.local/share/pipx/venvs/ptool
mkdir -p "$venv" && echo "home = /usr/bin" > "$venv/pyvenv.cfg"
exe "$venv/bin/ptool" '#!/bin/sh
cat "$(dirname "$(readlink -f "$0")")/../marker"'
echo "pipx-venv" > "$venv/marker"
ln -s "$venv/bin/ptool" "$HOME/.local/bin/ptool"
# pyenv: a shim that runs pyenv, which runs the selected version.
pyenv=$HOME/.pyenv
exe "$pyenv/libexec/pyenv" '#!/bin/sh
[ "$1" = exec ] && shift && exec "$(dirname "$0")/../versions/3.99.0/bin/$@"'
exe "$pyenv/shims/python3" '#!/bin/sh
exec "$(dirname "$0")/../libexec/pyenv" exec python3 "$@"'
exe "$pyenv/versions/3.99.0/bin/python3" '#!/bin/sh
echo pyenv-python'
# cargo (beside its credentials) and go.
exe "$HOME/.cargo/bin/ctool" '#!/bin/sh
echo cargo-tool'
echo 'token = "cargo-s3cret"' > "$HOME/.cargo/credentials.toml"
exe "$HOME/go/bin/gtool" '#!/bin/sh
echo go-tool'
# A program outside every shown directory.
exe "$T_TMP/opt/bin/hosttool" '#!/bin/sh
echo host'

export PATH="$HOME/.npm-global/bin:$nvmv/bin:$HOME/.local/bin:$pyenv/shims:$HOME/.cargo/bin:$HOME/go/bin:$PATH"

plan 13
if command -v node >/dev/null; then
        check "npm prefix: the bin link into lib/node_modules runs, with its package and dependency" \
                "agent 1.2.3 with-dep" "$(inside -- fakeagent)"
else
        skip "no node on this host" "npm prefix: the bin link into lib/node_modules runs"
fi
check "nvm: the version's program runs with its lib" "nvm-node" "$(inside -- fakenode)"
check "nvm: nvm.sh is readable" "OK:nvm() { :; }" \
        "$(inside -- /usr/bin/python3 -c "$TRY" 'open(p).read()' "$HOME/.nvm/nvm.sh")"
check "~/.local/bin: a pip --user script imports from the user site" "user-site" \
        "$(inside -- pyuser)"
check "~/.local/bin: a pipx link runs in its venv" "pipx-venv" "$(inside -- ptool)"
check "pyenv: python3 is the shim's, not the system's" "pyenv-python" "$(inside -- python3)"
check "cargo: ~/.cargo/bin runs" "cargo-tool" "$(inside -- ctool)"
check "go: ~/go/bin runs" "go-tool" "$(inside -- gtool)"
check "cargo's credentials stay out" "$(on_backend ENOENT EACCES)" \
        "$(inside -- /usr/bin/python3 -c "$TRY" 'open(p).read()' "$HOME/.cargo/credentials.toml")"
plan_text=$(cd "$T_PROJECT" && "$CORDON" run --dry-run -- true 2>&1)
check "--dry-run: npm's prefix with the origin PATH" "1" \
        "$(grep -c "^  ro *$HOME/.npm-global  (from PATH (for '$HOME/.npm-global/bin'))\$" <<<"$plan_text")"
check "--dry-run: ~/.cargo/bin with the origin PATH, not ~/.cargo" "1:0" \
        "$(grep -c "^  ro *$HOME/.cargo/bin  (from PATH)\$" <<<"$plan_text"):$(grep -c " $HOME/.cargo  " <<<"$plan_text")"
check "config explain: the origin of a path in the pipx venv" "1" \
        "$(cd "$T_PROJECT" && "$CORDON" config explain "$venv/marker" 2>&1 | grep -c "(from PATH (what '$HOME/.local/bin/ptool' links to))  -> wins")"
out=$(PATH="$T_TMP/opt/bin:$PATH" inside -- hosttool); rc=$?
case "$rc:$out" in
"$(on_backend 127 126)":*"is '$T_TMP/opt/bin/hosttool' on the host"*"add --ro $T_TMP/opt/bin to the command line"*)
        ok "not shown: the error says where it is on the host and names --ro" ;;
*) not_ok "not shown: the error says where it is on the host and names --ro" "rc=$rc" "$out" ;;
esac
