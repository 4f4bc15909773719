# The real agent CLIs, installed from the npm registry the machine's npm is configured for, for
# the tests that drive them as their users do. Source after tap.sh.
#
# agents_install: installs the pinned versions below (bin/claude, bin/codex, bin/gemini) once per
# machine and user into $CORDON_TEST_AGENTS_CACHE (default /var/tmp/cordon-test-agents/KEY-UID)
# under a lock. 0, or 1 with the reason in $AGENTS_WHY (no npm, the registry unreachable).
# agents_take DIR: moves that npm prefix to DIR (say ~/.npm-global, as `npm config set prefix`
# makes it: a rename, its 700 MiB are not copied) until the test's end, when agents_give_back
# (an EXIT trap) moves it back; a later test of a run that died first installs again.

AGENTS_PACKAGES=(@anthropic-ai/claude-code@2.1.197 @openai/codex@0.171.0 @google/gemini-cli@0.61.0)

agents_cache() {
        local key
        key=$(printf '%s\n' "${AGENTS_PACKAGES[@]}" | sha256sum | cut -c1-12)
        echo "${CORDON_TEST_AGENTS_CACHE:-/var/tmp/cordon-test-agents/$key-$(id -u)}"
}

agents_install() {
        local cache
        cache=$(agents_cache)
        [ -e "$cache/done" ] && [ -x "$cache/prefix/bin/claude" ] && return 0
        if ! command -v npm >/dev/null; then
                AGENTS_WHY="npm is not installed"
                return 1
        fi
        mkdir -p "$(dirname "$cache")" 2>/dev/null && chmod 1777 "$(dirname "$cache")" 2>/dev/null
        if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
                AGENTS_WHY="cannot make $cache"
                return 1
        fi
        (
                flock 9
                [ -e "$cache/done" ] && [ -x "$cache/prefix/bin/claude" ] && exit 0
                rm -rf "$cache/prefix" "$cache/done"
                # The suite's environment is cleared: the system's certificates, as npm is given
                # them outside (a registry behind a proxy with a CA of its own).
                ca=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
                [ -r "$ca" ] && export NODE_EXTRA_CA_CERTS=$ca
                timeout 900 npm install -g --prefix "$cache/prefix" --no-fund --no-audit \
                        "${AGENTS_PACKAGES[@]}" >"$cache/install.log" 2>&1 || exit 1
                touch "$cache/done"
        ) 9>"$cache/lock"
        if [ ! -e "$cache/done" ]; then
                AGENTS_WHY="npm could not install the agents from $(npm config get registry 2>/dev/null): $(tail -2 "$cache/install.log" 2>/dev/null | tr '\n' ' ')"
                return 1
        fi
}

AGENTS_TAKEN=
agents_take() {
        mkdir -p "$(dirname "$1")"
        mv "$(agents_cache)/prefix" "$1" && AGENTS_TAKEN=$1
}

agents_give_back() {
        [ -n "$AGENTS_TAKEN" ] && [ -d "$AGENTS_TAKEN" ] && mv "$AGENTS_TAKEN" "$(agents_cache)/prefix"
        AGENTS_TAKEN=
}
