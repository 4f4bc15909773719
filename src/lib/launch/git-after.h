/* PROTECT_GIT_CONFIG once the sandbox has ended: the repositories below its writable roots that
 * it made or changed so that the host's git would act on them (a key that runs a program, a
 * hook, a commondir, a todo line that runs a command) are moved aside, where git no longer
 * finds them. The mounts keep the repository at each root while the sandbox runs
 * (lower-git.c); this is for the ones it makes anywhere below: a `sub/.git` the host's
 * `git status` enters through a gitlink, a shell prompt through `cd`. */
#pragma once

#include <stddef.h>
#include <time.h>

#include "cordon/sandbox.h"

/* Entries listed below all roots together, at most; past it the rest is left unchecked. */
#define CORDON_GIT_AFTER_MAX_ENTRIES 1000000u

struct cordon_git_after {
        struct cordon_git_moved *moved; /* its strings are in @strings */
        size_t n_moved;
        char **strings;
        char *unchecked; /* NULL, or what was not checked and why */
};

/* Walks @roots (host realpaths, NULL-terminated) without following links, passing over the
 * git directories @kept at the start. A git directory (a `.git` directory, a `.git` file's or
 * link's target, or a directory that is itself a bare repository) is trusted when nothing
 * outside git's writable entries changed since @since (its inode change times), or when what
 * is there passes git-state.h's allow lists; otherwise its `.git` (or the bare repository) is
 * renamed to NAME.cordon-untrusted. In @kept directories only the todo lists are judged, and
 * a state directory with a command in its todo is the one moved. Returns 0 (what was moved and
 * what was not checked in @ret), or -ENOMEM. */
int cordon_git_after_check(char *const *roots, char *const *kept, const struct timespec *since,
                           size_t max_entries, struct cordon_git_after *ret);

void cordon_git_after_clear(struct cordon_git_after *a);
