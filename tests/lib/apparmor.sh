# shellcheck shell=bash disable=SC2034 # sourced: AA_PARSER, AA_BASE and AA_WHY are for the caller
# An apparmor_parser that knows AppArmor 4 policy (abi 4.0, the `userns` rule), for parse-only
# checks (-Q -K: nothing is loaded into the kernel). Source it, then call aa_parser_find:
#   AA_PARSER  the command as an array (a loader and its library path for a fetched one)
#   AA_BASE    the base directory of its abi/ and tunables/ (apparmor_parser -b)
#   AA_WHY     why there is none, when aa_parser_find returns 1
# Debian 12's apparmor package (3.0) predates the `userns` rule. There, as root, Debian 13's
# apparmor and libc6 packages are fetched with apt-get download (private package lists, the
# system's sources untouched) into a shared cache, and that parser runs with its own libc.
AA_CACHE=/var/cache/cordon-tests/apparmor-4
AA_PROBE='abi <abi/4.0>,
profile probe /nonexistent flags=(unconfined) {
  userns,
}'

_aa_try() { # _aa_try BASE PARSER...: the parser parses the probe
        local base=$1; shift
        printf '%s\n' "$AA_PROBE" | "$@" -Q -K ${base:+-b "$base"} >/dev/null 2>&1
}

_aa_fetch() {
        local tmp opts mirror
        tmp=$(mktemp -d) || return 1
        opts=(-o "Dir::Etc::sourcelist=$tmp/sources.list" -o Dir::Etc::sourceparts=-
                -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache"
                -o "Dir::State::status=$tmp/status" -o APT::Sandbox::User=root)
        mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/x" && touch "$tmp/status"
        # The mirror this machine's apt already uses, with Debian 13's suite.
        mirror=$("$T_SRC/scripts/apt-mirror.sh") || { rm -rf "$tmp"; return 1; }
        echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" >"$tmp/sources.list"
        if (cd "$tmp" && timeout 300 apt-get -qq "${opts[@]}" update &&
                timeout 300 apt-get -qq "${opts[@]}" download apparmor libc6) >/dev/null 2>&1 &&
                for d in "$tmp"/*.deb; do dpkg-deb -x "$d" "$tmp/x" || exit 1; done; then
                rm -rf "$AA_CACHE" && mkdir -p "${AA_CACHE%/*}" && mv "$tmp/x" "$AA_CACHE" &&
                        chmod -R a+rX "$AA_CACHE"
        fi
        rm -rf "$tmp"
}

aa_parser_find() {
        local sys
        sys=$(PATH=$PATH:/usr/sbin:/sbin command -v apparmor_parser)
        if [ -z "$sys" ] && [ "$(id -u)" = 0 ]; then
                DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
                        apparmor >/dev/null 2>&1
                sys=$(PATH=$PATH:/usr/sbin:/sbin command -v apparmor_parser)
        fi
        if [ -n "$sys" ] && _aa_try "" "$sys"; then
                AA_PARSER=("$sys") AA_BASE=""
                return 0
        fi
        local fetched=("$AA_CACHE/usr/lib64/ld-linux-x86-64.so.2" --library-path
                "$AA_CACHE/usr/lib/x86_64-linux-gnu" "$AA_CACHE/usr/sbin/apparmor_parser")
        if ! _aa_try "$AA_CACHE/etc/apparmor.d" "${fetched[@]}" && [ "$(id -u)" = 0 ] &&
                [ "$(uname -m)" = x86_64 ]; then
                _aa_fetch
        fi
        if _aa_try "$AA_CACHE/etc/apparmor.d" "${fetched[@]}"; then
                AA_PARSER=("${fetched[@]}") AA_BASE=$AA_CACHE/etc/apparmor.d
                return 0
        fi
        if [ -z "$sys" ]; then
                AA_WHY="apparmor_parser is not installed and cannot be (apt-get install apparmor, as root)"
        else
                AA_WHY="$sys predates AppArmor 4 (no userns rule) and no AppArmor 4 parser is in $AA_CACHE (a run as root fetches Debian 13's)"
        fi
        return 1
}
