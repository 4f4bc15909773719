/* cordon-session's command line (`cordon session COMMAND ...`): one option table per command
 * drives getopt_long() and the --help text, and the request bodies are built from what was
 * parsed with the wire's own encoders (wire.h), so they are the contract's shapes exactly. Pure:
 * no I/O (the working directory a relative mount source is taken against is an argument). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "serve/wire.h"

enum client_command {
        CLIENT_CREATE,
        CLIENT_LS,
        CLIENT_EXEC,
        CLIENT_ATTACH,
        CLIENT_SNAPSHOT,
        CLIENT_SUSPEND,
        CLIENT_RESUME,
        CLIENT_RM,
        _CLIENT_COMMAND_MAX,
};

/* What the command line asks for. Strings point into argv unless said otherwise. */
struct client_args {
        enum client_command command;
        bool help;          /* --help: print client_help() and exit 0 */
        bool version;       /* --version (before a command) */
        const char *socket; /* --socket PATH; NULL: $XDG_RUNTIME_DIR/cordon/serve.sock */
        bool json;
        const char *id; /* the session: every command but create and ls */
        /* create: the SandboxSpec (owned; serve_spec_clear()) */
        struct serve_spec spec;
        /* exec, attach: the ExecRequest (owned; serve_exec_request_clear()), its stdin not yet
         * read: --stdin-file's path ("-": standard input), NULL for none */
        struct serve_exec_request exec;
        const char *stdin_file;
};

/* Parses `cordon-session [--socket PATH] COMMAND [OPTIONS] [OPERANDS]` (argv[0] is the
 * program). Returns 0, or -EINVAL with one line in @err (what is wrong; the caller adds where
 * the help is, and the command's name is in ret->command when it was known, else
 * _CLIENT_COMMAND_MAX), or -ENOMEM. @cwd: what a relative --mount source is made absolute
 * against. @shell: attach's command when none is given ($SHELL, else "/bin/sh" when NULL or
 * empty). The result is freed with client_args_clear(), also after a failure. */
int client_args_parse(int argc, char **argv, const char *cwd, const char *shell,
                      struct client_args *ret, char *err, size_t errlen);
void client_args_clear(struct client_args *a);

/* "create", ... */
const char *client_command_name(enum client_command c);

/* The help of @c, or of the program (the commands and the common options) for
 * _CLIENT_COMMAND_MAX. */
void client_help(FILE *f, enum client_command c);

/* The request bodies, compact JSON (malloc'd; NULL on ENOMEM): the SandboxSpec of create, the
 * ExecRequest of exec and attach (with "pty": true for attach). */
char *client_spec_body(const struct client_args *a);
char *client_exec_body(const struct client_args *a);

/* The bodies of a process's stdin, resize and signal routes: {"data": BASE64, "eof": B},
 * {"rows": R, "cols": C}, {"signal": N}. NULL on ENOMEM. */
char *client_stdin_body(const void *data, size_t len, bool eof);
char *client_resize_body(unsigned rows, unsigned cols);
char *client_signal_body(int sig);

/* A duration in seconds as the command line takes it ("10", "0.5", "1.25"): non-negative, at
 * most nine decimals, at most 2^53 s. 0 or -EINVAL. */
int client_parse_seconds(const char *s, struct serve_duration *ret);
