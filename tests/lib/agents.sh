# The real agent CLIs, installed from the npm registry the machine's npm is configured for, for
# the tests that drive them as their users do. Source after tap.sh.
#
# agents_install: sets $AGENTS_PREFIX to an npm prefix holding the pinned versions below
# (bin/claude, bin/codex, bin/gemini), installed once per machine into
# $CORDON_TEST_AGENTS_CACHE (default /var/tmp/cordon-test-agents/<versions>) by the first run
# that can write there (the suite runs as root first), under a lock. 0, or 1 with the reason in
# $AGENTS_WHY (no npm, the registry unreachable, nothing installed and nowhere to install).
# agents_user_prefix DIR: copies that prefix to DIR (say ~/.npm-global), owned by the user.

AGENTS_PACKAGES=(@anthropic-ai/claude-code@2.1.197 @openai/codex@0.171.0 @google/gemini-cli@0.61.0)

agents_install() {
        local key cache lock
        key=$(printf '%s\n' "${AGENTS_PACKAGES[@]}" | sha256sum | cut -c1-12)
        cache=${CORDON_TEST_AGENTS_CACHE:-/var/tmp/cordon-test-agents/$key}
        AGENTS_PREFIX=$cache/prefix
        if [ -x "$AGENTS_PREFIX/bin/claude" ] && [ -x "$AGENTS_PREFIX/bin/codex" ] &&
                [ -x "$AGENTS_PREFIX/bin/gemini" ] && [ -e "$cache/done" ]; then
                return 0
        fi
        if ! command -v npm >/dev/null; then
                AGENTS_WHY="npm is not installed"
                return 1
        fi
        if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
                AGENTS_WHY="the agents are not installed in $cache and this user cannot install them there (run the suite as root once)"
                return 1
        fi
        chmod 755 "$(dirname "$cache")" "$cache" 2>/dev/null
        lock=$cache/lock
        (
                flock 9
                [ -e "$cache/done" ] && exit 0
                rm -rf "$AGENTS_PREFIX"
                timeout 600 npm install -g --prefix "$AGENTS_PREFIX" --no-fund --no-audit \
                        "${AGENTS_PACKAGES[@]}" >"$cache/install.log" 2>&1 || exit 1
                chmod -R a+rX "$cache"
                touch "$cache/done"
        ) 9>"$lock"
        if [ ! -e "$cache/done" ]; then
                AGENTS_WHY="npm could not install ${AGENTS_PACKAGES[*]} (the registry $(npm config get registry 2>/dev/null) unreachable?): $(tail -3 "$cache/install.log" 2>/dev/null | tr '\n' ' ')"
                return 1
        fi
}

agents_user_prefix() {
        rm -rf "$1"
        mkdir -p "$(dirname "$1")"
        cp -a "$AGENTS_PREFIX" "$1"
}
