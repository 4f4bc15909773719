/* The access kinds of filesystem rules as data: what each enum cordon_access needs and gives. The
 * policy checks, the mount plan and Landlock ask this table instead of listing kinds. */
#pragma once

#include <stdbool.h>

#include "cordon/cordon.h"

/* What a bind of a host path gives; CORDON_BIND_NONE for a kind that is not a bind. */
enum cordon_bind {
        CORDON_BIND_NONE,
        CORDON_BIND_READ,   /* read-only, nosuid, nodev */
        CORDON_BIND_WRITE,  /* read-write, nosuid, nodev */
        CORDON_BIND_DEVICE, /* read-write, nosuid: device nodes */
};

/* The rule's `host` argument. */
enum cordon_access_host {
        CORDON_ACCESS_HOST_NONE,     /* must be NULL */
        CORDON_ACCESS_HOST_OPTIONAL, /* a bind without one remounts the guest path in place */
        CORDON_ACCESS_HOST_REQUIRED,
};

/* What the rule puts at its guest path. */
enum cordon_access_node {
        CORDON_NODE_ANY, /* whatever the host path is (a mask: a file or a directory) */
        CORDON_NODE_DIR,
        CORDON_NODE_FILE,
        CORDON_NODE_SYMLINK,
};

struct cordon_access_traits {
        const char *name;
        enum cordon_bind bind;
        enum cordon_access_host host;
        /* `host` is an absolute host path the command sees through (binds, copies), rather than
         * generated contents (DATA) or a link target (SYMLINK). */
        bool host_is_path;
        /* Mounted writable: a read-write bind, a tmpfs (unless SEAL'd: made read-only once
         * filled), a private copy. Not DEV, whose tmpfs is sealed (its nodes and shm are). */
        bool writable;
        enum cordon_access_node node;
        /* Only a mount namespace can give it: the landlock backend leaves the rule out (and
         * stands in with a private TMPDIR for the tmpfs). */
        bool ns_only;
};

/* The traits of @a, or NULL for a value out of range. Thread-safe (a constant table). */
const struct cordon_access_traits *cordon_access_traits(enum cordon_access a);

/* Shorthands for the traits asked most; false for a value out of range. */
bool cordon_access_is_bind(enum cordon_access a);
bool cordon_access_host_is_path(enum cordon_access a);
