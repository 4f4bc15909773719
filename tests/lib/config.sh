# Helpers for the sandbox.conf scenario tests. Source after tap.sh.
#   cfg_dir                 the user's configuration directory in the scratch HOME
#   cfg_reset               removes every configuration file of the scratch HOME
#   cfg_value NAME [ARGS]   the effective value of NAME (`cordon config show --json`): a scalar's
#                           value, or a list's items one per line; ARGS go to `config show`
#   cfg_origin NAME         the scalar's origin, or the last list item's
#   admin_fixture NAME      path of tests/fixtures/config/NAME.conf when it is fit to be an admin
#                           baseline (owned by root, not writable by others); empty otherwise
#   host_admin_baseline     prints the first real admin baseline this host has (agent-sandbox's
#                           or cordon's), status 1 when it has none: CORDON_ADMIN_CONF is
#                           refused beside one
cfg_dir=$HOME/.config/cordon
cfg_reset() { rm -rf "$HOME/.config/cordon" "$HOME/.config/agent-sandbox"; mkdir -p "$cfg_dir/conf.d"; }
CFG_PY='import json, sys
d = json.load(sys.stdin)["variables"][sys.argv[1]]
what = sys.argv[2]
if "items" in d:
    items = d["items"]
    if what == "value":
        print("\n".join(i["value"] for i in items))
    else:
        print(items[-1]["origin"] if items else "")
else:
    print(d["value"] if what == "value" else d["origin"])'
cfg_value() { local n=$1; shift; "$CORDON" config show --json "$@" 2>/dev/null | python3 -c "$CFG_PY" "$n" value; }
cfg_origin() { local n=$1; shift; "$CORDON" config show --json "$@" 2>/dev/null | python3 -c "$CFG_PY" "$n" origin; }
admin_fixture() {
        local f=$T_SRC/tests/fixtures/config/$1.conf
        [ "$(stat -c %u "$f" 2>/dev/null)" = 0 ] && [ "$(stat -c %u "$(dirname "$f")")" = 0 ] &&
                echo "$f"
}
host_admin_baseline() {
        local f
        for f in /app/lib/agent-sandbox/sandbox.conf /etc/cordon/sandbox.conf; do
                if [ -e "$f" ] || [ -L "$f" ]; then echo "$f"; return 0; fi
        done
        return 1
}
