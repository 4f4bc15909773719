/* The daemon-holder channel's framing and the helpers both ends share (see holder-proto.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve/holder-proto.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

bool holder_name_valid(const char *s)
{
        if (!s || strlen(s) != HOLDER_NAME_LEN)
                return false;
        for (const char *p = s; *p; p++)
                if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
                        return false;
        return true;
}

int holder_frame_encode(const json_t *j, char **ret, size_t *ret_len)
{
        char *text = json_dumps(j, JSON_COMPACT);
        if (!text)
                return -ENOMEM;
        size_t len = strlen(text);
        if (len == 0 || len > HOLDER_FRAME_MAX) {
                free(text);
                return -EMSGSIZE;
        }
        char *buf = malloc(len + 4);
        if (!buf) {
                free(text);
                return -ENOMEM;
        }
        buf[0] = (char)(len & 0xff);
        buf[1] = (char)((len >> 8) & 0xff);
        buf[2] = (char)((len >> 16) & 0xff);
        buf[3] = (char)((len >> 24) & 0xff);
        memcpy(buf + 4, text, len);
        free(text);
        *ret = buf;
        *ret_len = len + 4;
        return 0;
}

ssize_t holder_frame_decode(const char *buf, size_t len, json_t **ret)
{
        if (len < 4)
                return 0;
        const unsigned char *u = (const unsigned char *)buf;
        size_t n = (size_t)u[0] | (size_t)u[1] << 8 | (size_t)u[2] << 16 | (size_t)u[3] << 24;
        if (n == 0 || n > HOLDER_FRAME_MAX)
                return -EMSGSIZE;
        if (len - 4 < n)
                return 0;
        json_t *j = json_loadb(buf + 4, n, JSON_REJECT_DUPLICATES, NULL);
        if (!j)
                return -EBADMSG;
        if (!json_is_object(j)) {
                json_decref(j);
                return -EBADMSG;
        }
        *ret = j;
        return (ssize_t)(n + 4);
}

static int reserve(char **buf, size_t *cap, size_t need)
{
        if (need <= *cap)
                return 0;
        size_t c = *cap ? *cap : 4096;
        while (c < need)
                c *= 2;
        char *b = realloc(*buf, c);
        if (!b)
                return -ENOMEM;
        *buf = b;
        *cap = c;
        return 0;
}

int holder_conn_read(struct holder_conn *c)
{
        for (;;) {
                /* Never more than one whole frame and a header buffered unread. */
                if (c->in_len >= HOLDER_FRAME_MAX + 8)
                        return -EMSGSIZE;
                int r = reserve(&c->in, &c->in_cap, c->in_len + 65536);
                if (r < 0)
                        return r;
                ssize_t n = read(c->fd, c->in + c->in_len, c->in_cap - c->in_len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN)
                                return 0;
                        return -errno;
                }
                if (n == 0)
                        return 1;
                c->in_len += (size_t)n;
        }
}

int holder_conn_next(struct holder_conn *c, json_t **ret)
{
        ssize_t n = holder_frame_decode(c->in, c->in_len, ret);
        if (n <= 0)
                return (int)n;
        memmove(c->in, c->in + n, c->in_len - (size_t)n);
        c->in_len -= (size_t)n;
        return 1;
}

int holder_conn_flush(struct holder_conn *c)
{
        while (c->out_off < c->out_len) {
                ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
                                 MSG_NOSIGNAL | MSG_DONTWAIT);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN)
                                return 1;
                        return -errno;
                }
                c->out_off += (size_t)n;
        }
        c->out_off = c->out_len = 0;
        return 0;
}

int holder_conn_send(struct holder_conn *c, const json_t *j)
{
        _cleanup_free_ char *frame = NULL;
        size_t len;
        int r = holder_frame_encode(j, &frame, &len);
        if (r < 0)
                return r;
        if (c->out_off > 0) {
                memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
                c->out_len -= c->out_off;
                c->out_off = 0;
        }
        r = reserve(&c->out, &c->out_cap, c->out_len + len);
        if (r < 0)
                return r;
        memcpy(c->out + c->out_len, frame, len);
        c->out_len += len;
        r = holder_conn_flush(c);
        return r < 0 ? r : 0;
}

void holder_conn_clear(struct holder_conn *c)
{
        free(c->in);
        free(c->out);
        safe_close(c->fd);
        *c = HOLDER_CONN_NULL;
}

int holder_stat_start_time(const char *text, uint64_t *ret)
{
        const char *p = strrchr(text, ')');
        if (!p)
                return -EBADMSG;
        p++;
        /* After the comm: field 3 (state) is the first; starttime is field 22. */
        for (int field = 3; field < 22; field++) {
                p = strchr(p + 1, ' ');
                if (!p)
                        return -EBADMSG;
        }
        p++;
        char *e;
        errno = 0;
        unsigned long long v = strtoull(p, &e, 10);
        if (errno || e == p || (*e != ' ' && *e != '\n' && *e != 0))
                return -EBADMSG;
        *ret = v;
        return 0;
}

int holder_proc_start_time(pid_t pid, uint64_t *ret)
{
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r = read_full_file(path, 4096, &text, &len);
        if (r == -ENOENT)
                return -ESRCH;
        if (r < 0)
                return r;
        return holder_stat_start_time(text, ret);
}
