#!/usr/bin/env bash
# libcordon exports its public API and nothing else (TAP): the functions the sources mark
# _public_ are the functions include/cordon/*.h declares, and exactly the global names of the
# version script src/lib/libcordon.sym; with a built library, `nm -D --defined-only` of it lists
# exactly those names (with the version nodes of the script), so neither a helper of the static
# core nor a C++ template instance leaks into the ABI.
# Usage: check-lib-symbols.sh SOURCE_ROOT [LIBCORDON_SO]
set -u
root=${1:?usage: check-lib-symbols.sh SOURCE_ROOT [LIBCORDON_SO]}
so=${2:-}
script=$root/src/lib/libcordon.sym
export LC_ALL=C

n=0 failed=0
# t STATUS DESCRIPTION [DETAIL...]: one TAP line, the details as comments under a failure.
t() {
        local st=$1 what=$2
        shift 2
        n=$((n + 1))
        if [ "$st" = 0 ]; then
                echo "ok $n - $what"
        else
                echo "not ok $n - $what"
                failed=$((failed + 1))
                for d in "$@"; do printf '%s\n' "$d" | grep . | sed 's/^/#   /'; done
        fi
}
# same NAME_A LIST_A NAME_B LIST_B: 0 when the two sorted lists are equal, else the differences
# on stdout.
same() {
        local d
        d=$(diff <(printf '%s\n' "$2") <(printf '%s\n' "$4") |
                awk -v a="$1" -v b="$3" '/^< / { print "only in " a ": " substr($0, 3) } /^> / { print "only in " b ": " substr($0, 3) }')
        [ -z "$d" ] && return 0
        printf '%s\n' "$d"
        return 1
}

echo "1..$([ -n "$so" ] && echo 4 || echo 3)"

# The name after _public_ and its return type (`_public_ const char *cordon_x(`), outside
# comments.
public=$(find "$root/src" \( -name '*.c' -o -name '*.cc' \) -print0 | xargs -0 perl -0777 -ne '
        s{("(?:\\.|[^"\\\n])*"|'"'"'(?:\\.|[^'"'"'\\\n])*'"'"')|/\*.*?\*/|//[^\n]*}{defined $1 ? $1 : " "}gse;
        while (/\b_public_\b([^(;{]*?)\b([A-Za-z_]\w*)\s*\(/g) { print "$2\n" }' | sort -u)
# The functions the public headers declare, comments left out.
declared=$(cat "$root"/include/cordon/*.h |
        perl -0777 -pe 's{("(?:\\.|[^"\\\n])*")|/\*.*?\*/|//[^\n]*}{defined $1 ? $1 : " "}gse' |
        perl -0777 -ne 'while (/\b(cordon_[a-z0-9_]+)\s*\(/g) { print "$1\n" }' | sort -u)
# The global names of every node of the version script; and its nodes.
scripted=$(perl -0777 -pe 's{/\*.*?\*/}{}gs; s{#[^\n]*}{}g' "$script" |
        perl -0777 -ne 'while (/\bglobal:(.*?)(?:\blocal:|\})/gs) { my $g = $1; print "$1\n" while $g =~ /([A-Za-z_]\w*)\s*;/g }' | sort -u)
nodes=$(perl -0777 -pe 's{/\*.*?\*/}{}gs' "$script" | perl -0777 -ne 'print "$1\n" while /\b([A-Z][A-Z0-9_]*)\s*\{/g' | sort -u)

# A reader that found nothing would make the comparisons pass.
if [ "$(grep -c . <<<"$public")" -ge 50 ] && [ -n "$nodes" ] && grep -qx cordon_sandbox_start <<<"$scripted"; then
        t 0 "the sources, the headers and the version script can be read ($(grep -c . <<<"$public") public functions, nodes: $(paste -sd' ' <<<"$nodes"))"
else
        t 1 "the sources, the headers and the version script can be read" \
                "public: $(grep -c . <<<"$public"), scripted: $(grep -c . <<<"$scripted"), nodes: '$nodes'"
        exit 1
fi

d=$(same "the sources (_public_)" "$public" "include/cordon/*.h" "$declared")
t $? "every function include/cordon/*.h declares is marked _public_ in the sources, and only those" "$d"

d=$(same "the sources (_public_)" "$public" "src/lib/libcordon.sym" "$scripted")
t $? "src/lib/libcordon.sym exports exactly the _public_ functions" "$d"

if [ -n "$so" ]; then
        if ! out=$(nm -D --defined-only "$so" 2>&1); then
                t 1 "nm -D --defined-only ${so##*/} lists exactly the version script's names" "$out"
        else
                # "ADDR T name@@NODE", and "0 A NODE" for each version node.
                exported=$(awk '{ print $NF }' <<<"$out" | sed 's/@.*//' | sort -u)
                want=$(printf '%s\n%s\n' "$scripted" "$nodes" | sort -u)
                d=$(same "${so##*/}" "$exported" "src/lib/libcordon.sym" "$want")
                t $? "nm -D --defined-only ${so##*/} lists exactly the version script's names" "$d"
        fi
fi
[ "$failed" -eq 0 ]
