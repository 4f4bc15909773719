/* Fuzz target for src/serve/client-args.c: the input is a command line, its words separated by
 * NUL bytes (at most 64). Checks: the parser answers 0, -EINVAL with a line, or -ENOMEM; what it
 * accepts makes a body the daemon's own parser (wire.h) takes or refuses as invalid_request, and
 * when it takes it, it encodes back to the same text (the client sends the canonical form; only
 * a mount target is normalised by the daemon, trimmed of white space and trailing slashes). */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "serve/client-args.h"

#define WORDS_MAX 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        char *copy = malloc(size + 1);
        if (!copy)
                return 0;
        memcpy(copy, data, size);
        copy[size] = 0;
        static char prog[] = "cordon-session";
        char *argv[WORDS_MAX + 2] = {prog};
        int argc = 1;
        for (char *w = copy; argc <= WORDS_MAX && w <= copy + size; w += strlen(w) + 1)
                argv[argc++] = w;
        argv[argc] = NULL;

        struct client_args a;
        char err[512] = "";
        int r = client_args_parse(argc, argv, "/cwd", "/bin/sh", &a, err, sizeof(err));
        FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
        if (r == -EINVAL)
                FUZZ_CHECK(err[0] != 0);
        if (r == 0 && !a.help && !a.version) {
                struct serve_error e = {};
                if (a.command == CLIENT_CREATE) {
                        char *body = client_spec_body(&a);
                        struct serve_spec s;
                        int p = body ? serve_spec_parse(body, strlen(body), &s, &e) : -ENOMEM;
                        FUZZ_CHECK(p == 0 || p == -ENOMEM ||
                                   (p == -EINVAL && e.kind == SERVE_ERR_INVALID_REQUEST));
                        if (p == 0 && a.spec.n_mounts == 0) {
                                char *again = serve_json_dump(serve_spec_to_json(&s));
                                FUZZ_CHECK(!again || strcmp(again, body) == 0);
                                free(again);
                        }
                        serve_spec_clear(&s);
                        free(body);
                }
                if (a.command == CLIENT_EXEC || a.command == CLIENT_ATTACH) {
                        FUZZ_CHECK(a.id && a.exec.command);
                        char *body = client_exec_body(&a);
                        struct serve_exec_request x;
                        int p = body ? serve_exec_request_parse(body, strlen(body), true, &x, &e)
                                     : -ENOMEM;
                        FUZZ_CHECK(p == 0 || p == -ENOMEM ||
                                   (p == -EINVAL && e.kind == SERVE_ERR_INVALID_REQUEST));
                        if (p == 0) {
                                char *again = serve_json_dump(serve_exec_request_to_json(&x));
                                FUZZ_CHECK(!again || strcmp(again, body) == 0);
                                free(again);
                        }
                        serve_exec_request_clear(&x);
                        free(body);
                }
        }
        client_args_clear(&a);
        free(copy);
        return 0;
}
