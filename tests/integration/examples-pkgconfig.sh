#!/usr/bin/env bash
# libcordon as an outside program uses it: the installed build (run-tap.sh installs it into
# $T_INSTALL with meson install --destdir) has the public headers, the library, libcordon.pc
# and the man pages; examples/run-and-kill.c builds with `pkg-config --cflags --libs libcordon`
# against them, starts a sandbox, kills it from a second thread and reports how it ended;
# examples/poll-loop.c drives two sandboxes from its own poll() loop beside a timerfd;
# examples/session.c runs three commands in one session, changes its network rules, snapshots
# it and restores the snapshot into a new session.
# shellcheck disable=SC1091 # staged by run-tap.sh
. "$T_SRC/tests/lib/tap.sh"

plan 12
D=${T_INSTALL:-}
log=$(cat "$T_SRC/install.log" 2>/dev/null)

pc=$(find "$D" -name libcordon.pc -path '*/pkgconfig/*' 2>/dev/null | head -1)
if [ -n "$pc" ]; then
        ok "libcordon.pc is installed (${pc#"$D"})"
else
        not_ok "libcordon.pc is installed" "no libcordon.pc under '$D'" "$log"
fi

# pkg-config on the installed file, with its prefix moved into the DESTDIR.
export PKG_CONFIG_PATH=${pc%/*}
prefix=$(pkg-config --variable=prefix libcordon 2>/dev/null)
pcc() { pkg-config --define-variable=prefix="$D$prefix" "$@" libcordon; }
cflags=$(pcc --cflags 2>&1) libs=$(pcc --libs 2>&1)
libdir=$(pcc --variable=libdir 2>&1) incdir=$(pcc --variable=includedir 2>&1)
private=$(pkg-config --print-requires-private libcordon 2>&1 | awk '{print $1}' | sort | paste -sd,)
if [ -n "$prefix" ] && [[ " $cflags " == *" -I$incdir "* || $incdir = /usr/include ]] &&
        [[ " $libs " == *" -L$libdir "* ]] && [[ " $libs " == *" -lcordon "* ]] &&
        [ "$private" = jansson,libcares,libseccomp ]; then
        ok "pkg-config --cflags --libs points into the installation, jansson, libcares and libseccomp private (libnftables is opened when needed)"
else
        not_ok "pkg-config --cflags --libs points into the installation" "cflags: $cflags" \
                "libs: $libs" "Requires.private: $private"
fi

missing=""
for h in cordon.h sandbox.h doctor.h cap-policy.h; do
        [ -f "$incdir/cordon/$h" ] || missing="$missing $h"
done
for so in libcordon.so libcordon.so.0; do [ -e "$libdir/$so" ] || missing="$missing $so"; done
check "the public headers and the library are installed" "" "$missing"

missing=""
for m in man1/cordon.1 man3/libcordon.3 man5/cordon-policy.5; do
        [ -f "$D$prefix/share/man/$m" ] || missing="$missing $m"
done
check "the man pages are installed" "" "$missing"

# Each public header on its own, as plain C11 with every warning.
bad=""
for h in "$incdir"/cordon/*.h; do
        printf '#include <cordon/%s>\n' "${h##*/}" | cc -std=c11 -Wall -Wextra -Werror -pedantic \
                $cflags -x c -fsyntax-only - >"$T_TMP/h.log" 2>&1 || bad="$bad ${h##*/}: $(head -3 "$T_TMP/h.log")"
done
check "every installed header compiles on its own (-std=c11 -pedantic)" "" "$bad"

src="$T_SRC/examples/run-and-kill.c" exe="$T_TMP/run-and-kill"
lines=$(wc -l <"$src")
# The sanitizer build installs a libcordon that needs the ASan runtime first in the process: a
# program that uses it is built with the same sanitizers (as any client of such a build must be).
san=""
if ldd "$libdir/libcordon.so" 2>/dev/null | grep -q 'libasan'; then
        san="-fsanitize=address,undefined"
fi
# shellcheck disable=SC2086 # word splitting of the flags is intended
if out=$(cc -std=c11 -Wall -Wextra -Werror -pthread $san $cflags -c "$src" -o "$exe.o" 2>&1) &&
        [ "$lines" -lt 100 ]; then
        ok "examples/run-and-kill.c ($lines lines) compiles against the installed headers"
else
        not_ok "examples/run-and-kill.c ($lines lines, < 100) compiles against the installed headers" "$out"
fi

# shellcheck disable=SC2086
if out=$(cc -pthread $san "$exe.o" -o "$exe" $libs 2>&1); then
        ok "examples/run-and-kill links against the installed libcordon"
else
        not_ok "examples/run-and-kill links against the installed libcordon" "$(printf '%s\n' "$out" | head -5)"
fi

# Killed from its second thread after 200 ms: the report says so, with SIGKILL's status.
if [ -x "$exe" ]; then
        out=$(LD_LIBRARY_PATH=$libdir timeout 30 "$exe" 2>&1); rc=$?
        want="backend=$(on_backend ns landlock) started=1 end=killed status=137 wait=0"
        check "the example runs, kills its sandbox and reads the report (exit $rc)" "$want" "$out"
else
        not_ok "the example runs, kills its sandbox and reads the report" "it did not build"
fi

# A caller's own poll() loop: the sandboxes' fds and timeouts beside its timerfd, which sends
# the second one SIGTERM at 500 ms while the first has ended on its own.
src="$T_SRC/examples/poll-loop.c" exe="$T_TMP/poll-loop"
# shellcheck disable=SC2086
if out=$(cc -std=c11 -Wall -Wextra -Werror $san $cflags "$src" -o "$exe" $libs 2>&1); then
        ok "examples/poll-loop.c compiles and links against the installed libcordon"
else
        not_ok "examples/poll-loop.c compiles and links against the installed libcordon" "$(printf '%s\n' "$out" | head -5)"
fi
if [ -x "$exe" ]; then
        out=$(LD_LIBRARY_PATH=$libdir timeout 30 "$exe" 2>&1); rc=$?
        want=$(printf '%s\n' "sleep 0.2; exit 3: end=exited status=3" "sleep 60: end=exited status=143")
        check "the example drives both sandboxes from its poll loop (exit $rc)" "$want" "$out"
else
        not_ok "the example drives both sandboxes from its poll loop" "it did not build"
fi

# A session: three execs, a network change, a snapshot and its restore into a new session.
src="$T_SRC/examples/session.c" exe="$T_TMP/session"
# shellcheck disable=SC2086
if out=$(cc -std=c11 -Wall -Wextra -Werror $san $cflags "$src" -o "$exe" $libs 2>&1); then
        ok "examples/session.c compiles and links against the installed libcordon"
else
        not_ok "examples/session.c compiles and links against the installed libcordon" "$(printf '%s\n' "$out" | head -5)"
fi
if [ -x "$exe" ]; then
        out=$(cd "$T_PROJECT" && LD_LIBRARY_PATH=$libdir timeout 60 "$exe" 2>&1); rc=$?
        want=$(printf '%s\n' "exec 1: status 0" "hello" "exec 2: status 0" "exec 3: status 3" \
                "network: rules changed" "snapshot: written" "hello" "restored: status 0")
        check "the session example runs its commands, changes the network, snapshots and restores (exit $rc)" "$want" "$out"
else
        not_ok "the session example runs" "it did not build"
fi
