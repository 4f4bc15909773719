#!/usr/bin/env bash
# Prints the first Debian mirror URI this machine's apt is configured with (one-line sources.list
# entries and deb822 .sources files; disabled files are not read), e.g. for a demo or a test that
# needs a real outside host without naming one. Prints nothing and fails when there is none.
set -u
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        uri=$(awk '
                /^[[:space:]]*#/ { next }
                $1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\//) { print $i; exit } }
                tolower($1) == "uris:" && $2 ~ /^https?:\/\// { print $2; exit }
        ' "$f")
        if [ -n "$uri" ]; then
                echo "${uri%/}"
                exit 0
        fi
done
exit 1
