#!/usr/bin/env bash
# Must still work: make drives a small build (compile, link, a generated file) in the project,
# and a second make finds everything up to date.
. "$(dirname "$0")/../lib/tap.sh"

printf 'int twice(int x) { return 2 * x; }\n' > "$T_PROJECT/lib.c"
printf 'int twice(int);\nint main(void) { return twice(21); }\n' > "$T_PROJECT/main.c"
printf '%s\n' 'all: prog stamp.txt' 'prog: main.o lib.o' '	$(CC) -o $@ main.o lib.o' \
        'stamp.txt: prog' '	echo built > $@' > "$T_PROJECT/Makefile"

plan 4
run_sandboxed make -s
check "make exits 0" "0:" "$rc:$out"
check "the generated file is on the host" "built" "$(cat "$T_PROJECT/stamp.txt" 2>&1)"
run_sandboxed ./prog
check "the linked program runs" "42" "$rc"
run_sandboxed make -q
check "a second make -q: up to date" "0" "$rc"
