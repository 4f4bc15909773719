#!/usr/bin/env bash
# libcordon's messages name variables and JSON keys, never the cordon program's spelling: no C
# string literal in src/lib holds one of cordon's own long options (--ro, --git-writable, ...)
# or a `cordon COMMAND` phrase (cordon run, cordon config explain, ...); each front end renders
# its own spelling (the CLI: cli_respell_settings(), run_options_spell_fix()). The options and
# commands are read from the CLI's own tables (every `struct cli_option NAME[]` of src/cli and
# main.c's commands), so the check follows them. Comments are not messages and are not read;
# adjacent literals count as one ("... cordon " "run ..."). Arguments cordon passes to other
# programs are not messages: one that happens to share a cordon option's name goes in
# tests/check-lib-no-cli.allow with the reason. Prints TAP, one line per file.
# Usage: check-lib-no-cli.sh SOURCE_ROOT
set -u
root=${1:?usage: check-lib-no-cli.sh SOURCE_ROOT}
allow=$root/tests/check-lib-no-cli.allow

# The long options of every option table of the CLI, one per line.
options=$(perl -0777 -ne '
        while (/struct\s+cli_option\s+\w+\s*\[\s*\]\s*=\s*\{(.*?)\n\};/gs) {
                my $t = $1;
                print "$1\n" while $t =~ /\{\s*"([a-z][a-z0-9-]*)"\s*,/g;
        }' "$root"/src/cli/*.c | sort -u)
# The subcommands: the rows of main.c's commands[] ({"run", cmd_run, ...}).
commands=$(perl -0777 -ne '
        if (/\}\s*commands\[\]\s*=\s*\{(.*?)\n\};/s) {
                my $t = $1;
                print "$1\n" while $t =~ /\{\s*"([a-z][a-z0-9-]*)"\s*,/g;
        }' "$root"/src/cli/main.c | sort -u)

echo "1..$(($(find "$root/src/lib" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) | wc -l) + 2))"
# A table that could not be read would make every file pass: refuse to check against nothing.
n_opt=$(grep -c . <<<"$options") n_cmd=$(grep -c . <<<"$commands")
if [ "$n_opt" -lt 20 ] || [ "$n_cmd" -lt 3 ] || ! grep -qx ro <<<"$options" ||
        ! grep -qx run <<<"$commands"; then
        echo "not ok 1 - the CLI's option tables and commands can be read"
        echo "#   $n_opt options, $n_cmd commands"
        exit 1
fi
echo "ok 1 - the CLI's option tables and commands can be read ($n_opt options, $n_cmd commands)"

opt_re=$(paste -sd'|' <<<"$options")
cmd_re=$(paste -sd'|' <<<"$commands")
# The allow list: FILE<TAB>LITERAL<TAB>why, FILE relative to the root, LITERAL the whole
# string literal as it stands in the source (quotes included); # starts a comment line.
allowed=$(grep -v '^#' "$allow" 2>/dev/null | grep . | cut -f1,2)

# scan FILE: LINE<TAB>LITERAL for each literal of FILE (adjacent ones joined) that names an
# option or a command.
scan() {
        OPT_RE=$opt_re CMD_RE=$cmd_re perl -0777 -ne '
                my ($opt, $cmd) = ($ENV{OPT_RE}, $ENV{CMD_RE});
                my $src = $_;
                my (@lits, $cur, $cur_line, $last_end);
                # The tokens that matter: comments (skipped), character and string literals.
                while ($src =~ m{(/\*.*?\*/|//[^\n]*|'"'"'(?:\\.|[^'"'"'\\\n])*'"'"'|"(?:\\.|[^"\\\n])*")}gs) {
                        my ($tok, $start, $end) = ($1, $-[0], $+[0]);
                        next if $tok =~ m{^/};
                        my $between = defined $cur ? substr($src, $last_end, $start - $last_end) : "";
                        if ($tok =~ /^"/ && defined $cur && $between =~ /^\s*$/) {
                                $cur = substr($cur, 0, -1) . substr($tok, 1);
                        } else {
                                push @lits, [$cur_line, $cur] if defined $cur;
                                undef $cur;
                                next unless $tok =~ /^"/;
                                $cur = $tok;
                                $cur_line = 1 + (substr($src, 0, $start) =~ tr/\n//);
                        }
                        $last_end = $end;
                }
                push @lits, [$cur_line, $cur] if defined $cur;
                for my $l (@lits) {
                        my ($line, $s) = @$l;
                        print "$line\t$s\n"
                            if $s =~ /(?<![A-Za-z0-9_-])--(?:$opt)(?![A-Za-z0-9_-])/
                            || $s =~ /\bcordon\s+(?:$cmd)\b/;
                }' "$1"
}

# The scanner itself, on a sample: it must find exactly the lines marked "hit" (a test that
# cannot fail would let every file pass).
sample=$(mktemp)
trap 'rm -f "$sample"' EXIT
cat >"$sample" <<'SAMPLE'
f("use --ro DIR"); /* hit */
f("see 'cordon " "doctor'"); /* hit: adjacent literals are one */
f("--git-writable"); /* hit */
f("run `cordon config explain NAME`"); /* hit */
f("--config-net", "--norc", "--no-map-gw"); /* another program's options */
f("cordon runs it outside", "cordon-config"); /* words, argv[0] */
/* comments are not messages: --ro, cordon run */
// --rw, cordon doctor
f('"', "READONLY_MOUNTS", "---ro", "--rox");
SAMPLE
got=$(scan "$sample" | cut -f1 | paste -sd' ')
if [ "$got" = "1 2 3 4" ]; then
        echo "ok 2 - the scanner finds the literals of a sample that name an option or command, and only those"
else
        echo "not ok 2 - the scanner finds the literals of a sample that name an option or command, and only those"
        echo "#   lines found: $got, expected: 1 2 3 4"
        exit 1
fi

i=2 failed=0
while IFS= read -r f; do
        i=$((i + 1))
        rel=${f#"$root"/}
        hits=$(scan "$f")
        bad=""
        while IFS=$'\t' read -r line lit; do
                [ -n "$line" ] || continue
                grep -qxF "$rel"$'\t'"$lit" <<<"$allowed" && continue
                bad+="$rel:$line: $lit"$'\n'
        done <<<"$hits"
        if [ -z "$bad" ]; then
                echo "ok $i - $rel names no option or command of the cordon program"
        else
                echo "not ok $i - $rel names an option or command of the cordon program"
                printf '%s' "$bad" | sed 's/^/#   /'
                failed=$((failed + 1))
        fi
done < <(find "$root/src/lib" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) | sort)
[ "$failed" -eq 0 ]
