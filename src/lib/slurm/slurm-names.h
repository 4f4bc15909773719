/* The Slurm commands a sandbox's command gets as cordon's stub (SLURM_SCOPE), and the wire between
 * the stub and the chaperon (src/slurm/). Shared by libcordon, the stub and the chaperon. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The names, NULL-terminated: the clients the chaperon serves, and sacctmgr, which it refuses. */
const char *const *cordon_slurm_command_names(void);

/* The variable naming the descriptor of the chaperon's doorbell in the command's environment. */
#define CORDON_SLURM_FD_ENV "CORDON_SLURM_FD"

/* The doorbell is one end of a SOCK_SEQPACKET pair the command inherits; the chaperon holds the
 * other. A stub rings it with one message: the byte CORDON_CHAPERON_RING and, as SCM_RIGHTS,
 * one end of a SOCK_SEQPACKET pair of its own, over which the call then runs (fd_send()). Each
 * message of a call is one type byte and its payload. */
#define CORDON_CHAPERON_RING 'R'

enum {
        /* stub -> chaperon: the request, JSON ({"argv": [...], "cwd": "...", "env": {...}}),
         * in pieces of at most CORDON_CHAPERON_CHUNK bytes: 'q' for each but the last, 'Q' for
         * the last. */
        CORDON_CHAPERON_REQ_MORE = 'q',
        CORDON_CHAPERON_REQ_END = 'Q',
        /* chaperon -> stub: read the file at the payload (a path as the call's working directory
         * sees it; "-": standard input) and send it back. */
        CORDON_CHAPERON_FILE_ASK = 'F',
        /* stub -> chaperon: the file, 'f' pieces then an empty 'F'; or 'x' and the error's
         * errno as text when it cannot be read. */
        CORDON_CHAPERON_FILE_DATA = 'f',
        CORDON_CHAPERON_FILE_END = 'F',
        CORDON_CHAPERON_FILE_ERROR = 'x',
        /* chaperon -> stub: bytes for the stub's standard output and error. */
        CORDON_CHAPERON_OUT = 'o',
        CORDON_CHAPERON_ERR = 'e',
        /* chaperon -> stub: the exit status (decimal text), last. */
        CORDON_CHAPERON_EXIT = 'X',
};

/* The most payload one message carries. */
#define CORDON_CHAPERON_CHUNK (32u * 1024)
/* The most a request's JSON may hold. */
#define CORDON_CHAPERON_REQUEST_MAX (2u * 1024 * 1024)
/* The most a file sent back may hold (a batch script, sbatch's limit is 4 MiB). */
#define CORDON_CHAPERON_FILE_MAX (4u * 1024 * 1024)
