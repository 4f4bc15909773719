#!/usr/bin/env bash
# What `make install` (meson install) puts in place, checked on the installation run-tap.sh
# makes with meson install --destdir ($T_INSTALL): every man page of man/, libcordon.pc, the bash
# completion and the AppArmor profile's copy under DATADIR/cordon/apparmor. The completion,
# sourced into bash, offers the commands, every option of `cordon run --help`, the values of
# --net, and the configuration variables (for `run --set NAME=` and `config explain KEY`): all of
# them, exactly the names `cordon config show --json` lists. The install script puts the profile into the AppArmor directory only where AppArmor
# restricts user namespaces (the sysctl from a stand-in file), and under DESTDIR loads nothing.
# shellcheck disable=SC1091 # staged by run-tap.sh
. "$T_SRC/tests/lib/tap.sh"

plan 25
D=${T_INSTALL:-}
log=$(cat "$T_SRC/install.log" 2>/dev/null)

missing=""
for page in "$T_SRC"/man/*.[1-8]; do
        name=${page##*/}
        [ -n "$(find "$D" -path "*/man/man${name##*.}/$name" 2>/dev/null)" ] || missing="$missing $name"
done
check "every man page of man/ is installed in its section" "" "$missing"
pc=$(find "$D" -path '*/pkgconfig/libcordon.pc' 2>/dev/null | head -1)
check "libcordon.pc is installed" "yes" "$([ -n "$pc" ] && echo yes || echo "no: $log")"
comp=$(find "$D" -path '*/bash-completion/completions/cordon' -type f 2>/dev/null | head -1)
check "the bash completion is installed as bash-completion/completions/cordon" "yes" \
        "$([ -n "$comp" ] && echo yes || echo "no: $log")"
session=$(find "$D" -path '*/libexec/cordon-session' -type f 2>/dev/null | head -1)
check "cordon-session is installed in libexecdir beside cordon-serve, executable" "yes" \
        "$([ -x "$session" ] && [ -x "${session%/*}/cordon-serve" ] && echo yes || echo "no: $log")"
copy=$(find "$D" -path '*/share/cordon/apparmor/cordon' -type f 2>/dev/null | head -1)
check "the AppArmor profile's copy is installed as DATADIR/cordon/apparmor/cordon, mode 0644" "644" \
        "$([ -n "$copy" ] && stat -c %a "$copy" || echo "missing: $log")"
# The SPANK plugin, where it is built: into Slurm's plugin directory (-Dspank_plugindir; Debian's
# PluginDir by default), loadable by name from plugstack.conf.
if [ -n "${CORDON_SPANK:-}" ]; then
        spank=$(find "$D" -name cordon_spank.so -type f 2>/dev/null | head -1)
        check "cordon_spank.so is installed into Slurm's plugin directory" "slurm-wlm/cordon_spank.so" \
                "$([ -n "$spank" ] && echo "${spank#"${spank%/*/*}"/}" || echo "missing: $log")"
elif [ -n "${T_SANITIZED:-}" ]; then
        ok "cordon_spank.so is installed # SKIP a sanitized build has no plugin (Slurm's programs load it)"
else
        skip "cordon_spank.so was not built (Slurm's spank.h missing)" "cordon_spank.so is installed"
fi

# complete WORD...: what the completion offers for the command line WORD... (the last word is
# the one being completed), sorted, one line.
complete_words() {
        bash --norc --noprofile -c '. "$1"; shift
                [ "$(complete -p cordon)" = "complete -F _cordon cordon" ] || { echo "not registered"; exit; }
                COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
                _cordon; printf "%s\n" "${COMPREPLY[@]}" | sort | paste -sd" "' _ "$comp" "$@"
}
check "completion: cordon <TAB> offers the commands" "config doctor help policy run serve session" \
        "$(complete_words cordon "" | tr ' ' '\n' | grep -v '^-' | paste -sd' ')"
check "completion: cordon run --net <TAB> offers the network modes" \
        "filtered isolated open proxied" "$(complete_words cordon run --net "")"
check "completion: cordon config <TAB> offers show and explain" "explain show" \
        "$(complete_words cordon config "")"
check "completion: cordon session <TAB> offers its commands" \
        "attach create exec ls resume rm snapshot suspend" "$(complete_words cordon session "")"
missing=""
for c in create ls exec attach snapshot suspend resume rm; do
        offered=" $(complete_words cordon session "$c" --) "
        for o in $("$CORDON" session "$c" --help |
                sed -n 's/^ \{1,\}\(-[a-zA-Z], \)\{0,1\}\(--[a-z0-9-]*\).*/\2/p'); do
                [[ $offered == *" $o "* ]] || missing="$missing $c:$o"
        done
done
check "completion: cordon session COMMAND --<TAB> offers every option of that command's --help" "" \
        "$missing"
check "completion: cordon session create --net <TAB> offers unrestricted and none" \
        "none unrestricted" "$(complete_words cordon session create --net "")"
check "completion: cordon session exec [--cwd D] ID [--] CMD --<TAB>: the command's words are not ours" \
        "|||--cwd --env --help --json --socket --stdin-file --timeout" \
        "$(complete_words cordon session exec s1 ls --)|$(complete_words cordon session exec --cwd d s1 -- ls --)|$(complete_words cordon session attach -- s1 sh --)|$(complete_words cordon session exec --cwd d s1 --)"
offered=" $(complete_words cordon run --) "
missing=""
for o in $("$CORDON" run --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        [[ $offered == *" $o "* ]] || missing="$missing $o"
done
check "completion: cordon run --<TAB> offers every option of cordon run --help" "" "$missing"

# The variable names are written into the completion at build time from the registry: they must
# be the registry's, all of them (a variable added to the registry and missing here fails).
registry=$("$CORDON" config show --json 2>/dev/null | python3 -c 'import json, sys
print(" ".join(sorted(json.load(sys.stdin)["variables"])))' 2>&1)
check "completion: config explain <TAB> offers exactly the variables of config show --json" \
        "$registry" "$(complete_words cordon config explain "")"
check "completion: run --set <TAB> offers exactly the variables of config show --json, each with =" \
        "$registry" "$(complete_words cordon run --set "" | sed 's/=\( \|$\)/\1/g')"
home_a=$(tr ' ' '\n' <<<"$registry" | sed -n 's/^HOME_A.*/&=/p' | paste -sd' ')
check "completion: run --set HOME_A<TAB> offers HOME_ACCESS= (and the other HOME_A* variables)" \
        "yes|$home_a" \
        "$([[ " $home_a " == *" HOME_ACCESS= "* ]] && echo yes)|$(complete_words cordon run --set HOME_A)"
check "completion: run --set=HOME_A<TAB> (bash splits at =) offers the same" \
        "$home_a" "$(complete_words cordon run --set = HOME_A)"
check "completion: run --set HOME_ACCESS=r<TAB> offers HOME_ACCESS's values" "read restricted" \
        "$(complete_words cordon run --set HOME_ACCESS = r)"
check "completion: config explain NETWORK_FILTER_M<TAB> offers NETWORK_FILTER_MODE" \
        "NETWORK_FILTER_MODE" "$(complete_words cordon config explain NETWORK_FILTER_M)"
mkdir -p "$T_TMP/cwd/NETWORK_dir" && touch "$T_TMP/cwd/NETWORK_file"
check "completion: config explain ./NET<TAB> completes a path" "./NETWORK_dir ./NETWORK_file" \
        "$(cd "$T_TMP/cwd" && complete_words cordon config explain ./NET)"
# `--net=open bas`: bash splits `--net` `=` `open`; the value is not the command, bas is
check "completion: the value of --net=open is not taken for the command" "yes" \
        "$(complete_words cordon run --net = open bas | tr ' ' '\n' | grep -qx bash && echo yes)"

# The install script itself, as meson runs it, into a DESTDIR of our own.
script=$T_SRC/data/apparmor/install-profile.sh
dest=$T_TMP/destdir
mkdir -p "$dest/usr/share/cordon/apparmor" && cp "$copy" "$dest/usr/share/cordon/apparmor/cordon"
echo 1 >"$T_TMP/sysctl"
out=$(DESTDIR=$dest CORDON_INSTALL_APPARMOR_SYSCTL=$T_TMP/sysctl \
        "$script" /usr/share/cordon/apparmor/cordon /etc/apparmor.d 2>&1); rc=$?
check "restricted host, DESTDIR: the profile goes to DESTDIR/etc/apparmor.d/cordon, 0644, unloaded, one line" \
        "0|644|1|cordon: staged /etc/apparmor.d/cordon under $dest, not loaded; on the target: apparmor_parser -r /etc/apparmor.d/cordon" \
        "$rc|$(stat -c %a "$dest/etc/apparmor.d/cordon" 2>&1)|$(printf '%s\n' "$out" | wc -l)|$out"
if cmp -s "$copy" "$dest/etc/apparmor.d/cordon"; then
        ok "restricted host: the installed profile is the generated one"
else
        not_ok "restricted host: the installed profile is the generated one"
fi
rm -rf "${dest:?}/etc"
echo 0 >"$T_TMP/sysctl"
out=$(DESTDIR=$dest CORDON_INSTALL_APPARMOR_SYSCTL=$T_TMP/sysctl \
        "$script" /usr/share/cordon/apparmor/cordon /etc/apparmor.d 2>&1); rc=$?
check "unrestricted host: nothing in the AppArmor directory, one line" \
        "0|absent|cordon: AppArmor does not restrict user namespaces here; the profile stays in /usr/share/cordon/apparmor/cordon" \
        "$rc|$([ -e "$dest/etc" ] && echo present || echo absent)|$out"
