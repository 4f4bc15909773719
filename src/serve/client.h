/* cordon-session's program-level helpers, shared by client-main.c and client-attach.c: they
 * print (the client's one-line errors) and talk to the daemon. */
#pragma once

#include <jansson.h>

#include "serve/client-args.h"
#include "shared/macro.h"

/* "cordon session: MESSAGE" on stderr. */
_printf_(1, 2) void client_fail(const char *fmt, ...);

/* One request, waited for. 0 with the parsed JSON answer in *@ret (NULL @ret: the body is not
 * read); on failure the one line is printed and -errno returned: a transport error as it is, an
 * answer that is not 2xx as "KIND: MESSAGE" (-EPROTO), an answer that is not JSON (-EBADMSG).
 * @body is stolen. */
int client_call(const char *socket, const char *method, const char *path, char *body, json_t **ret);

/* "/v1/sessions/ID@suffix" with ID escaped (client_path_escape()); NULL on ENOMEM. */
char *client_session_path(const char *id, const char *suffix);

/* `cordon session attach`: 0 with the process's exit status in *@ret_status, or -errno after
 * printing why. The terminal is restored on every way out. */
int client_attach(struct client_args *a, const char *socket, int *ret_status);
