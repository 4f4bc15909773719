#!/usr/bin/env bash
# Must still work: gcc compiles a C program in the project, and the binary runs there.
. "$(dirname "$0")/../lib/tap.sh"

cat > "$T_PROJECT/hello.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
        printf("hello from %s\n", getenv("SANDBOX_ACTIVE") ? "inside" : "outside");
        return 7;
}
C

plan 4
run_sandboxed gcc -Wall -Werror -O2 -o hello hello.c
check "gcc exits 0" "0:" "$rc:$out"
check "the binary landed in the host project" "yes" "$([ -x "$T_PROJECT/hello" ] && echo yes)"
run_sandboxed ./hello
check "the binary runs inside with its exit status" "7:hello from inside" "$rc:$out"
# The scratch directory: the private /tmp, or the private TMPDIR of the landlock backend.
run_sandboxed sh -c 'gcc -x c -o "${TMPDIR:-/tmp}/t" - <<C && "${TMPDIR:-/tmp}/t"
int main(void) { return 3; }
C'
check "compiling into and running from the scratch directory works" "3:" "$rc:$out"
