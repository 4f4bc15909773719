/* The exec request a session's supervisor sends inside (see control-exec.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/launch/control-exec.h"
#include "lib/launch/control.h"

#define MAGIC     "CEX1"
#define HEADER_SZ 12

static bool env_ok(const char *e)
{
        const char *eq = strchr(e, '=');
        return eq && eq != e;
}

static void put_u32(unsigned char *p, uint32_t v)
{
        p[0] = v & 0xff;
        p[1] = (v >> 8) & 0xff;
        p[2] = (v >> 16) & 0xff;
        p[3] = (v >> 24) & 0xff;
}

static uint32_t get_u32(const unsigned char *p)
{
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int cordon_exec_request_encode(char *const *argv, char *const *envp, const char *cwd,
                               void **ret_buf, size_t *ret_len)
{
        if (!argv || !argv[0] || !*argv[0] || (cwd && *cwd && *cwd != '/'))
                return -EINVAL;
        size_t argc = 0, envc = 0, len = HEADER_SZ;
        for (; argv[argc]; argc++) {
                if (argc >= CORDON_EXEC_ARGS_MAX)
                        return -E2BIG;
                len += strlen(argv[argc]) + 1;
        }
        for (; envp && envp[envc]; envc++) {
                if (envc >= CORDON_EXEC_ENV_MAX)
                        return -E2BIG;
                if (!env_ok(envp[envc]))
                        return -EINVAL;
                len += strlen(envp[envc]) + 1;
        }
        len += (cwd ? strlen(cwd) : 0) + 1;
        if (len > CORDON_CONTROL_PAYLOAD_MAX)
                return -E2BIG;
        unsigned char *buf = malloc(len), *p = buf;
        if (!buf)
                return -ENOMEM;
        memcpy(p, MAGIC, 4);
        put_u32(p + 4, (uint32_t)argc);
        put_u32(p + 8, (uint32_t)envc);
        p += HEADER_SZ;
        for (size_t i = 0; i < argc + envc + 1; i++) {
                const char *s = i < argc ? argv[i] : i < argc + envc ? envp[i - argc] : cwd ?: "";
                size_t k = strlen(s) + 1;
                memcpy(p, s, k);
                p += k;
        }
        *ret_buf = buf;
        *ret_len = len;
        return 0;
}

int cordon_exec_request_parse(const void *buf, size_t len, struct cordon_exec_request *ret)
{
        const unsigned char *in = buf;
        if (!buf || len < HEADER_SZ || len > CORDON_CONTROL_PAYLOAD_MAX ||
            memcmp(in, MAGIC, 4) != 0)
                return -EBADMSG;
        uint32_t argc = get_u32(in + 4), envc = get_u32(in + 8);
        if (argc < 1 || argc > CORDON_EXEC_ARGS_MAX || envc > CORDON_EXEC_ENV_MAX)
                return -EBADMSG;
        size_t n = (size_t)argc + envc + 1, body = len - HEADER_SZ;
        /* One block: the pointer arrays (argv and envp, each NULL-terminated), then a copy of
         * the strings. */
        size_t ptrs = (argc + 1 + envc + 1) * sizeof(char *);
        char *mem = malloc(ptrs + body);
        if (!mem)
                return -ENOMEM;
        char **argv = (char **)mem, **envp = argv + argc + 1;
        char *s = mem + ptrs, *end = s + body, *cwd = NULL;
        memcpy(s, in + HEADER_SZ, body);
        for (size_t i = 0; i < n; i++) {
                char *z = s < end ? memchr(s, 0, (size_t)(end - s)) : NULL;
                if (!z)
                        goto bad;
                if (i < argc)
                        argv[i] = s;
                else if (i < (size_t)argc + envc) {
                        if (!env_ok(s))
                                goto bad;
                        envp[i - argc] = s;
                } else
                        cwd = s;
                s = z + 1;
        }
        if (s != end || !*argv[0] || (*cwd && *cwd != '/'))
                goto bad;
        argv[argc] = NULL;
        envp[envc] = NULL;
        *ret = (struct cordon_exec_request){
            .argv = argv, .envp = envp, .cwd = *cwd ? cwd : NULL, .mem = mem};
        return 0;
bad:
        free(mem);
        return -EBADMSG;
}

void cordon_exec_request_clear(struct cordon_exec_request *req)
{
        free(req->mem);
        *req = (struct cordon_exec_request){0};
}
