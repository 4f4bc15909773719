#!/usr/bin/env bash
# docs/agent-sandbox-spec.md, the mission table, against the code (TAP): every variable of
# agent-sandbox's configuration index has a row; every row names a variable of the registry;
# the rows that say "held" are exactly the registry's HELD rows (none since issue 27), and only the Slurm ones
# (issue 27); the rows that say "refused" are the registry's NOT_ENFORCED rows.
# Usage: check-spec-table.sh SOURCE_DIR
set -u
src=${1:?usage: check-spec-table.sh SOURCE_DIR}
doc=$src/docs/agent-sandbox-spec.md
reg=$src/src/lib/settings/settings-registry.c

# The index of ../shared/spec/agent-sandbox-configuration.txt (agent-sandbox v0.13.1), in its order.
spec=(ALLOWED_PROJECT_PARENTS READONLY_MOUNTS HOME_ACCESS HOME_READONLY HOME_WRITABLE
        HOME_SEEDED_FILES EXTRA_BLOCKED_PATHS EXTRA_WRITABLE_PATHS DENIED_WRITABLE_PATHS
        BLOCKED_FILES DEVICES DEVICES_BLACKLIST BIND_DEV_PTS BLOCKED_ENV_VARS BLOCKED_ENV_PATTERNS
        ALLOWED_ENV_VARS SANDBOX_ENV SANDBOX_BACKEND SANDBOX_PREFERRED_BACKENDS SANDBOX_MODULES
        PRIVATE_TMP PRIVATE_IPC FILTER_PASSWD SANDBOX_NPROC_LIMIT SANDBOX_QUIET NETWORK_FILTER_MODE
        NETWORK_FILTER_FALLBACK NETWORK_BLOCKLIST NETWORK_BLOCKLIST_EXCEPT NETWORK_MAIL_BLOCK
        NETWORK_FILTER_SKIP_HELPER_PROBE SLURM_SCOPE CHAPERON_LOG_LEVEL CHAPERON_LOG_RETAIN_DAYS
        ENABLED_AGENTS SUPPRESS_AGENT_WARNINGS)

# "NAME|status" for each row of the variables table: | `NAME` | status | ...
rows=$(sed -n '/^## Variables of the specification/,/^## /p' "$doc" |
        sed -n 's/^| `\([A-Z_]*\)` | \([^|]*\) |.*/\1|\2/p')
# The registry's rows by kind: SCALAR("NAME", ..., LIST("NAME", ..., HELD("NAME", ...
reg_names=$(grep -oE '^\s*(SCALAR|LIST|NET_LIST|ENUM|LIMIT|HELD|NOT_ENFORCED|HOST_PROGRAM)\("[A-Z_]+"' "$reg" |
        sed -E 's/.*\("([A-Z_]+)"/\1/' | sort -u)
reg_of() { grep -oE "^\s*$1\(\"[A-Z_]+\"" "$reg" | sed -E 's/.*\("([A-Z_]+)"/\1/' | sort -u; }

n=0 failed=0
t() { # t OK? DESCRIPTION [DETAIL]
        n=$((n + 1))
        if [ "$1" = 0 ]; then echo "ok $n - $2"; else failed=$((failed + 1)); echo "not ok $n - $2"; [ -n "${3:-}" ] && printf '#   %s\n' "$3"; fi
}
echo "1..5"

missing=()
for v in "${spec[@]}"; do grep -q "^$v|" <<<"$rows" || missing+=("$v"); done
t "${#missing[@]}" "every variable of agent-sandbox's index has a row" "missing: ${missing[*]:-}"

unknown=()
while IFS='|' read -r name _; do
        [ -n "$name" ] && ! grep -qx "$name" <<<"$reg_names" && unknown+=("$name")
done <<<"$rows"
t "${#unknown[@]}" "every row names a variable of the registry" "not in the registry: ${unknown[*]:-}"

held_rows=$(grep -E '^[A-Z_]+\|held' <<<"$rows" | cut -d'|' -f1 | sort -u)
held_reg=$(reg_of HELD)
bad_held=$(grep -vE '^(SLURM_|CHAPERON_)' <<<"$held_rows" | grep .)
if [ "$held_rows" = "$held_reg" ] && [ -z "$bad_held" ]; then r=0; else r=1; fi
t $r "the rows saying held are the registry's held rows, and only Slurm's" \
        "table: $(echo $held_rows) | registry: $(echo $held_reg) | not Slurm: $(echo $bad_held)"

refused_rows=$(grep -E '^[A-Z_]+\|refused' <<<"$rows" | cut -d'|' -f1 | sort -u)
refused_reg=$(comm -12 <(reg_of NOT_ENFORCED) <(printf '%s\n' "${spec[@]}" | sort -u))
[ "$refused_rows" = "$refused_reg" ]; t $? "the rows saying refused are the registry's not-enforced rows" \
        "table: $(echo $refused_rows) | registry: $(echo $refused_reg)"
# Every test the table names exists (`unit/x.c`, `escape/x.sh`, `integration/x.sh`; a glob such
# as `escape/net-*.sh` must match one).
gone=()
for t in $(grep -oE '`(unit|escape|integration)/[A-Za-z0-9_*.-]+`' "$doc" | tr -d '`' | sort -u); do
        # shellcheck disable=SC2086 # a glob in the name is meant
        compgen -G "$src/tests/$t" >/dev/null || gone+=("$t")
done
t "${#gone[@]}" "every test the table names exists" "missing: ${gone[*]:-}"
exit 0
