/* The payload of a CORDON_CONTROL_EXEC (control.h): a command's argv, the environment
 * variables it gets over the sandbox's own, and its working directory. Encoded by the
 * supervisor, parsed inside the sandbox (fuzz target control-exec). Layout: "CEX1", argc and
 * envc as 32-bit little-endian numbers, then argc + envc + 1 strings, each ending in NUL: the
 * arguments, the NAME=VALUE variables, and the cwd ("" for the sandbox's). Nothing may follow. */
#pragma once

#include <stddef.h>

/* Limits a request is held to besides its size (CORDON_CONTROL_PAYLOAD_MAX). */
#define CORDON_EXEC_ARGS_MAX 4096
#define CORDON_EXEC_ENV_MAX  4096

struct cordon_exec_request {
        char **argv; /* NULL-terminated, at least one, argv[0] not empty */
        char **envp; /* NULL-terminated NAME=VALUE, NAME not empty and without '=' */
        char *cwd;   /* NULL: the sandbox's; else an absolute path */
        void *mem;   /* one block holding all of it */
};

/* Encodes into a new buffer (*@ret_buf, free()). @envp and @cwd may be NULL. Returns 0,
 * -EINVAL for an argv without a command, a variable without '=' or with an empty name, a
 * relative cwd, -E2BIG past the limits, -ENOMEM. */
int cordon_exec_request_encode(char *const *argv, char *const *envp, const char *cwd,
                               void **ret_buf, size_t *ret_len);
/* Parses @len bytes of @buf. Returns 0 with @ret filled (cordon_exec_request_clear()), or
 * -EBADMSG for anything but a well-formed request within the limits, -ENOMEM. */
int cordon_exec_request_parse(const void *buf, size_t len, struct cordon_exec_request *ret);
void cordon_exec_request_clear(struct cordon_exec_request *req);
