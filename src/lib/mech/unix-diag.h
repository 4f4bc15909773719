/* NETLINK_SOCK_DIAG for unix sockets: what the kernel says of one socket, found by its inode
 * number (and cookie), or whether any socket of the network namespace is bound to a given path
 * inode. Mechanism only: what the answers mean is the caller's (launch/notify-unix.h). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Any socket of that inode number (the cookie is not compared). */
#define CORDON_UNIX_DIAG_NOCOOKIE UINT64_MAX

struct cordon_unix_diag {
        uint32_t ino;    /* the socket's own inode number (its sockfs inode: fstat() of it) */
        uint64_t cookie; /* the kernel's id of the socket, never given to another one */
        bool named;      /* it has an address (UNIX_DIAG_NAME): bound, or autobound */
        /* Bound to a path: the device (makedev() encoding) and the inode number of the socket
         * file it made. The kernel reports only the low 32 bits of that number. */
        bool has_vfs;
        dev_t vfs_dev;
        uint32_t vfs_ino;
};

/* A NETLINK_SOCK_DIAG socket (close-on-exec) of the caller's network namespace, or -errno. */
int cordon_unix_diag_open(void);
/* What the kernel says of the unix socket of inode number @ino whose cookie is @cookie
 * (CORDON_UNIX_DIAG_NOCOOKIE: whatever it is). 0, -ENOENT when there is no such socket (any
 * more), -ESTALE when the socket of that number is another one (its cookie differs), -errno. */
int cordon_unix_diag_get(int nl, uint32_t ino, uint64_t cookie, struct cordon_unix_diag *ret);
/* Whether some unix socket of the namespace is bound to the path inode @ino (its low 32 bits, as
 * the kernel reports them) on one of the @n_devs devices @devs: 1, 0, or -errno. Walks every unix
 * socket there is. */
int cordon_unix_diag_bound_at(int nl, const dev_t *devs, size_t n_devs, uint32_t ino);

/* The payload of one SOCK_DIAG_BY_FAMILY answer (struct unix_diag_msg and its attributes, @len
 * bytes), exposed for the tests. 0, or -EBADMSG when it is not a unix socket's or is cut short. */
int cordon_unix_diag_parse(const void *payload, size_t len, struct cordon_unix_diag *ret);
