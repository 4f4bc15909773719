#!/bin/sh
# meson install script: puts cordon's AppArmor profile into the AppArmor directory and loads it,
# only where AppArmor restricts unprivileged user namespaces (elsewhere the profile changes
# nothing, and the copy under DATADIR is enough for `cordon doctor` to point at).
# Usage: install-profile.sh PROFILE_COPY APPARMOR_DIR
#   PROFILE_COPY  the installed copy (DATADIR/cordon/apparmor/cordon), without DESTDIR
#   APPARMOR_DIR  where AppArmor reads profiles from (/etc/apparmor.d)
# Under DESTDIR (a staged install, a package build) it never loads anything. Prints one line.
# CORDON_INSTALL_APPARMOR_SYSCTL names another file to read the restriction from (tests only).
set -eu
copy=${1:?usage: install-profile.sh PROFILE_COPY APPARMOR_DIR}
dir=${2:?usage: install-profile.sh PROFILE_COPY APPARMOR_DIR}
destdir=${DESTDIR:-}
sysctl=${CORDON_INSTALL_APPARMOR_SYSCTL:-/proc/sys/kernel/apparmor_restrict_unprivileged_userns}
target=$dir/cordon

# say LINE: the outcome, on stdout and in the build's meson-logs/apparmor-install.txt, because
# meson before 1.1 discards what an install script prints (`make install` shows the file).
say() {
        printf '%s\n' "$1"
        if [ -n "${MESON_BUILD_ROOT:-}" ] && [ -d "$MESON_BUILD_ROOT/meson-logs" ]; then
                printf '%s\n' "$1" >"$MESON_BUILD_ROOT/meson-logs/apparmor-install.txt" || true
        fi
}

if [ "$(cat "$sysctl" 2>/dev/null || true)" != 1 ]; then
        say "cordon: AppArmor does not restrict user namespaces here; the profile stays in $copy"
        exit 0
fi
if [ -n "${MESON_INSTALL_DRY_RUN:-}" ]; then
        say "cordon: would install $target"
        exit 0
fi

install -d -m 0755 "$destdir$dir"
install -m 0644 "$destdir$copy" "$destdir$target"
if [ -n "$destdir" ]; then
        say "cordon: staged $target under $destdir, not loaded; on the target: apparmor_parser -r $target"
        exit 0
fi

parser=$(PATH=$PATH:/usr/sbin:/sbin command -v apparmor_parser || true)
if [ "$(id -u)" != 0 ] || [ -z "$parser" ]; then
        say "cordon: installed $target, not loaded; load it with: sudo apparmor_parser -r $target"
        exit 0
fi
# A profile the parser rejects must not stay behind: AppArmor loads the whole directory at boot.
if ! err=$("$parser" -r "$target" 2>&1); then
        rm -f "$target"
        say "cordon: apparmor_parser -r $target failed, profile removed: $err" >&2
        exit 1
fi
say "cordon: installed and loaded $target: cordon may create user namespaces"
