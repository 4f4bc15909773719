/* The JSON receipt of one `cordon run`: the library's report, written where the sandbox cannot
 * reach it, whole or not at all. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/receipt.h"
#include "shared/fd-util.h"
#include "shared/json-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"

/* The library's report (cordon_report_to_json()), with the outcome as this run ended: @r the
 * result of the step that ended it, and on a failure the sentence of @diag rather than the
 * errno's description the report alone can give. */
static json_t *receipt_json(const struct cordon_report *rep, int r, const struct cordon_diag *diag)
{
        /* A message naming a path that is not UTF-8 becomes null, not a receipt that fails. */
        json_t *failed =
            r < 0 ? json_pack("{s:o, s:i}", "error", json_string_or_null(diag ? diag->message : ""),
                              "errno", -r)
                  : NULL;
        if (r < 0 && !failed)
                return NULL;
        /* Lowering failed: nothing was decided yet, so every field but the outcome is null. */
        if (!rep)
                return json_pack("{s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:o}",
                                 "backend", "profile", "fallback", "project", "home_access",
                                 "network", "env_blocked", "env_blocked_names", "namespaces",
                                 "layers", "outcome", failed ?: json_null());
        _cleanup_free_ char *text = NULL;
        _cleanup_json_ json_t *o = NULL;
        if (cordon_report_to_json(rep, 0, &text) < 0 || !(o = json_loads(text, 0, NULL)) ||
            (failed && json_object_set_new(o, "outcome", TAKE_PTR(failed)) < 0)) {
                json_decref(failed);
                return NULL;
        }
        return TAKE_PTR(o);
}

/* A name for the temporary next to @name that no one can have guessed. */
static int tmp_name(const char *name, char **ret)
{
        uint64_t x;
        if (getrandom(&x, sizeof(x), 0) != sizeof(x))
                return -errno;
        return asprintf(ret, ".%s.%016" PRIx64 ".tmp", name, x) < 0 ? -ENOMEM : 0;
}

/* Puts the reason in @diag and returns @r. */
_printf_(3, 4) static int receipt_diag(struct cordon_diag *diag, int r, const char *fmt, ...)
{
        if (diag) {
                int saved = errno;
                va_list ap;
                va_start(ap, fmt);
                errno = r < 0 ? -r : r;
                vsnprintf(diag->message, sizeof(diag->message), fmt, ap);
                va_end(ap);
                errno = saved;
        }
        return r;
}

int receipt_open(struct receipt *rc, const char *path, const struct cordon_policy *p,
                 struct cordon_diag *diag)
{
        _cleanup_close_ int dir_fd = -EBADF;
        _cleanup_free_ char *name = NULL;
        int r;
        if (p) {
                /* Not where the sandbox could replace it, not through a link a sandbox could
                 * have planted, the directory opened without following links. */
                if ((r = cordon_policy_open_output_dir(p, path, "--receipt", &dir_fd, &name,
                                                       diag)) < 0)
                        return r;
        } else {
                /* Lowering failed: nothing runs, so nothing can tamper with it meanwhile. */
                const char *slash = strrchr(path, '/');
                const char *base = slash ? slash + 1 : path;
                if (!*base || streq(base, ".") || streq(base, ".."))
                        return receipt_diag(diag, -EINVAL, "--receipt '%s' names no file", path);
                _cleanup_free_ char *dir =
                    slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
                if (!dir || !(name = strdup(base)))
                        return -ENOMEM;
                dir_fd = open(*dir ? dir : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (dir_fd < 0)
                        return receipt_diag(diag, -errno, "--receipt '%s': %m", path);
        }
        struct stat st;
        if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
                return receipt_diag(diag, -EISDIR, "--receipt '%s' is a directory", path);
        _cleanup_free_ char *t = NULL;
        /* Unnamed until it is complete, so a run that is killed leaves nothing behind; a file
         * system without O_TMPFILE gets a named temporary file instead. */
        _cleanup_close_ int fd = openat(dir_fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
        if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
                int k = tmp_name(name, &t);
                if (k < 0)
                        return k;
                fd = openat(dir_fd, t, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
        }
        if (fd < 0)
                return receipt_diag(diag, -errno, "--receipt '%s': %m", path);
        rc->dir_fd = TAKE_FD(dir_fd);
        rc->fd = TAKE_FD(fd);
        rc->name = TAKE_PTR(name);
        rc->tmp_name = TAKE_PTR(t);
        return 0;
}

int receipt_commit(struct receipt *rc, const struct cordon_report *rep, int r,
                   const struct cordon_diag *diag)
{
        _cleanup_json_ json_t *root = receipt_json(rep, r, diag);
        if (!root)
                return -ENOMEM;
        _cleanup_free_ char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (!text)
                return -ENOMEM;
        int k = write_all(rc->fd, text, strlen(text));
        if (k >= 0)
                k = write_all(rc->fd, "\n", 1);
        if (k >= 0 && fsync(rc->fd) < 0)
                k = -errno;
        if (k >= 0 && !rc->tmp_name) {
                /* linkat(AT_EMPTY_PATH) would need CAP_DAC_READ_SEARCH; the magic link does
                 * not. The name is random and O_EXCL-like: linkat never replaces. */
                char proc[64];
                snprintf(proc, sizeof(proc), "/proc/self/fd/%d", rc->fd);
                for (int tries = 0; k >= 0 && !rc->tmp_name && tries < 8; tries++) {
                        _cleanup_free_ char *t = NULL;
                        if ((k = tmp_name(rc->name, &t)) < 0)
                                break;
                        if (linkat(AT_FDCWD, proc, rc->dir_fd, t, AT_SYMLINK_FOLLOW) == 0)
                                rc->tmp_name = TAKE_PTR(t);
                        else if (errno != EEXIST)
                                k = -errno;
                }
                if (k >= 0 && !rc->tmp_name)
                        k = -EEXIST;
        }
        /* rename() replaces the name itself, also a symlink there, and never follows it. */
        if (k >= 0 && renameat(rc->dir_fd, rc->tmp_name, rc->dir_fd, rc->name) < 0)
                k = -errno;
        if (k >= 0) {
                free(rc->tmp_name);
                rc->tmp_name = NULL;
        }
        receipt_clear(rc);
        return k;
}

void receipt_clear(struct receipt *rc)
{
        if (rc->tmp_name && rc->dir_fd >= 0)
                (void)unlinkat(rc->dir_fd, rc->tmp_name, 0);
        free(rc->tmp_name);
        free(rc->name);
        rc->tmp_name = rc->name = NULL;
        rc->fd = safe_close(rc->fd);
        rc->dir_fd = safe_close(rc->dir_fd);
}
