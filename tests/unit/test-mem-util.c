/* memory_release_idle(): the stack below the caller's frame given back, the rest intact. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "shared/mem-util.h"

/* The resident size of the main thread's stack, in KiB (smaps' Rss of "[stack]"). */
static long stack_rss_kib(void)
{
        FILE *f = fopen("/proc/self/smaps", "re");
        cr_assert_not_null(f);
        char line[512];
        bool in = false;
        long kib = -1;
        while (fgets(line, sizeof(line), f)) {
                unsigned long lo, hi;
                if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
                        in = strstr(line, "[stack]") != NULL;
                if (in && sscanf(line, "Rss: %ld kB", &kib) == 1)
                        break;
        }
        fclose(f);
        return kib;
}

/* Dirties some 256 KiB of stack below its caller, then returns. */
__attribute__((noinline)) static int deep(int n)
{
        char buf[16 * 1024];
        memset(buf, n, sizeof(buf));
        /* The buffer escapes (the compiler must write it) and the recursion is not a tail call. */
        __asm__ volatile("" : : "r"(buf) : "memory");
        return n ? deep(n - 1) + buf[100] : 0;
}

Test(mem_util, the_stack_below_is_given_back)
{
        int kept = 42;               /* a local of the caller's frame must survive */
        cr_assert_eq(deep(16), 136); /* 16 + 15 + ... + 1 */
        long before = stack_rss_kib();
        cr_assert_geq(before, 256, "the deep calls left %ld KiB of stack", before);
        memory_release_idle(MEMORY_RELEASE_STACK);
        long after = stack_rss_kib();
        cr_assert_lt(after, before - 128, "%ld KiB before, %ld after", before, after);
        cr_assert_eq(kept, 42);
        /* The stack works on: the released pages come back zeroed when touched. */
        cr_assert_eq(deep(4), deep(4));
}

Test(mem_util, the_heap_trim_keeps_live_data)
{
        char *p = malloc(1 << 20), *q = malloc(64);
        cr_assert(p && q);
        memset(p, 1, 1 << 20);
        strcpy(q, "live");
        free(p);
        memory_release_idle(MEMORY_RELEASE_HEAP);
        cr_assert_str_eq(q, "live");
        free(q);
}
