/* Giving back what a long-lived, idle process no longer uses. */
#pragma once

enum {
        MEMORY_RELEASE_HEAP = 1 << 0,  /* the heap's free memory: malloc_trim() */
        MEMORY_RELEASE_STACK = 1 << 1, /* this thread's stack below the caller's frame */
};

/* Returns to the kernel what @what names: pages of the stack come back zeroed when a deeper
 * call touches them again (MADV_DONTNEED). For a process that has done its deep work (loading
 * settings, setting a sandbox up, handling a command) and now waits: each such page is
 * otherwise kept, and after a fork copied, for its whole life. Only the main thread's stack
 * ("[stack]" in /proc/self/maps) is trimmed; without /proc nothing of it is. Best effort:
 * errors are ignored. Not from a signal handler or a child that shares its parent's memory.
 * The heap's trim writes malloc's own records: in a process that shares its heap's pages with
 * a forked relative (copy on write) it can cost more pages than it frees. */
void memory_release_idle(unsigned what);
