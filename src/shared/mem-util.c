/* Giving back what a long-lived, idle process no longer uses (mem-util.h). */
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shared/mem-util.h"

/* The main thread's stack mapping, from /proc/self/maps. */
static int stack_range(uintptr_t *ret_lo, uintptr_t *ret_hi)
{
        FILE *f = fopen("/proc/self/maps", "re");
        if (!f)
                return -1;
        char line[512];
        int r = -1;
        while (fgets(line, sizeof(line), f)) {
                if (!strstr(line, "[stack]"))
                        continue;
                uintmax_t lo, hi;
                if (sscanf(line, "%jx-%jx", &lo, &hi) == 2) {
                        *ret_lo = (uintptr_t)lo;
                        *ret_hi = (uintptr_t)hi;
                        r = 0;
                }
                break;
        }
        fclose(f);
        return r;
}

/* Not inlined: its frame lies below the caller's, and the pages it releases lie below its own
 * frame by a margin (the red zone, the calls it makes). */
__attribute__((noinline)) static void release_stack_below(uintptr_t frame)
{
        uintptr_t lo, hi;
        const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        if (stack_range(&lo, &hi) < 0 || frame <= lo || frame > hi)
                return;
        /* 16 KiB under this frame stay: madvise() and whatever libc does around it. */
        const uintptr_t margin = 16 * 1024;
        if (frame - lo <= margin + page)
                return;
        uintptr_t end = (frame - margin) & ~(page - 1);
        (void)madvise((void *)lo, end - lo, MADV_DONTNEED);
}

void memory_release_idle(unsigned what)
{
        if (what & MEMORY_RELEASE_HEAP)
                (void)malloc_trim(0);
        if (what & MEMORY_RELEASE_STACK)
                release_stack_below((uintptr_t)__builtin_frame_address(0));
}
