/* Fuzz target for src/lib/launch/control.c and control-exec.c: the input as one message on a
 * control channel (received with room for a payload, as the command server does) and as an
 * exec request. Checks: results are the documented ones; an accepted message of a type without
 * descriptors brings none; an accepted request has a command, NAME=VALUE variables and an
 * absolute or no cwd, and encodes back to the same bytes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "lib/launch/control-exec.h"
#include "lib/launch/control.h"

static void as_message(const uint8_t *data, size_t size)
{
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
                return;
        if (send(sv[1], data, size, MSG_DONTWAIT) == (ssize_t)size) {
                static char buf[CORDON_CONTROL_PAYLOAD_MAX];
                struct cordon_control_msg m;
                int r = cordon_control_recv_payload(sv[0], MSG_DONTWAIT, &m, buf, sizeof(buf));
                /* An empty record reads as end of file. */
                FUZZ_CHECK(r == 1 || r == -EBADMSG || (r == 0 && size == 0));
                if (r == 1) {
                        FUZZ_CHECK(m.type >= CORDON_CONTROL_RELEASE &&
                                   m.type < _CORDON_CONTROL_TYPE_MAX);
                        FUZZ_CHECK(m.fd == -1 && m.n_fds == 0);
                        FUZZ_CHECK(m.payload_len == size - sizeof(m));
                        FUZZ_CHECK(m.type == CORDON_CONTROL_EXEC || m.payload_len == 0);
                }
                r = cordon_control_recv(sv[0], MSG_DONTWAIT, &m);
                FUZZ_CHECK(r == -EAGAIN);
        }
        close(sv[0]);
        close(sv[1]);
}

static void as_request(const uint8_t *data, size_t size)
{
        struct cordon_exec_request req;
        int r = cordon_exec_request_parse(data, size, &req);
        FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ENOMEM);
        if (r != 0)
                return;
        FUZZ_CHECK(req.argv[0] && *req.argv[0]);
        for (size_t i = 0; req.envp[i]; i++) {
                const char *eq = strchr(req.envp[i], '=');
                FUZZ_CHECK(eq && eq != req.envp[i]);
        }
        FUZZ_CHECK(!req.cwd || req.cwd[0] == '/');
        void *buf = NULL;
        size_t len = 0;
        r = cordon_exec_request_encode(req.argv, req.envp, req.cwd, &buf, &len);
        FUZZ_CHECK(r == 0 || r == -ENOMEM);
        if (r == 0) {
                FUZZ_CHECK(len == size && memcmp(buf, data, len) == 0);
                free(buf);
        }
        cordon_exec_request_clear(&req);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        as_message(data, size);
        as_request(data, size);
        return 0;
}
