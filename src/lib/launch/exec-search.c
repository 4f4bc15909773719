/* Finding and executing the command between clone and exec: execvp() with the sandbox's PATH,
 * without allocating (the landlock backend's child shares the supervisor's memory). And, for the
 * supervisor's message when that failed, where the command is on the host. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/launch/exec-search.h"
#include "shared/macro.h"
#include "shared/path-util.h"

/* A file without a #! line is a shell script, as execvp() has it. */
static void exec_script(const char *path, char *const *argv, char *const *envp)
{
        static char sh[] = "sh";
        char file[PATH_MAX], *args[256];
        size_t n = 0, len = strlen(path);

        if (len >= sizeof(file))
                return;
        memcpy(file, path, len + 1);
        args[n++] = sh;
        args[n++] = file;
        for (size_t i = 1; argv[i]; i++) {
                if (n >= ELEMENTSOF(args) - 1) {
                        errno = ENOEXEC; /* too many arguments to pass on here */
                        return;
                }
                args[n++] = argv[i];
        }
        args[n] = NULL;
        execve("/bin/sh", args, envp);
        errno = ENOEXEC;
}

/* execvp() with the PATH of @envp rather than of the caller: the landlock backend's child shares
 * the supervisor's memory (and so its environ) until it execs. No allocation. */
void cordon_exec_search(const char *file, char *const *argv, char *const *envp)
{
        const char *path = "/usr/local/bin:/usr/bin:/bin";
        int saved = ENOENT;

        if (strchr(file, '/')) {
                execve(file, argv, envp);
                if (errno == ENOEXEC)
                        exec_script(file, argv, envp);
                saved = errno;
        } else {
                for (char *const *e = envp; e && *e; e++)
                        if (strncmp(*e, "PATH=", 5) == 0)
                                path = *e + 5;
                for (const char *p = path;; p++) {
                        const char *end = strchrnul(p, ':');
                        char buf[PATH_MAX];
                        size_t dl = (size_t)(end - p), fl = strlen(file);
                        /* An empty entry means the working directory, as for execvp(). */
                        if (dl + 1 + fl + 1 <= sizeof(buf)) {
                                memcpy(buf, dl ? p : ".", dl ? dl : 1);
                                size_t n = dl ? dl : 1;
                                buf[n] = '/';
                                memcpy(buf + n + 1, file, fl + 1);
                                execve(buf, argv, envp);
                                if (errno == ENOEXEC) {
                                        exec_script(buf, argv, envp);
                                        saved = ENOEXEC;
                                        break;
                                }
                                /* Keep looking after a miss; remember a permission problem. */
                                if (errno == EACCES)
                                        saved = EACCES;
                                else if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP &&
                                         errno != ENAMETOOLONG && errno != ESTALE &&
                                         errno != ENODEV && errno != ETIMEDOUT) {
                                        saved = errno;
                                        break;
                                }
                        }
                        if (!*end)
                                break;
                        p = end;
                }
        }
        errno = saved;
}

/* ---- Supervisor side: these allocate. ---- */

static bool host_executable(const char *path)
{
        struct stat st;
        return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int cordon_exec_find_host(const char *file, const char *path, char **ret)
{
        if (!*file)
                return -ENOENT;
        if (strchr(file, '/')) {
                if (!path_is_absolute(file) || !host_executable(file))
                        return -ENOENT;
                return (*ret = strdup(file)) ? 0 : -ENOMEM;
        }
        for (const char *p = path ?: "";;) {
                size_t n = strcspn(p, ":");
                if (n > 0 && p[0] == '/') {
                        _cleanup_free_ char *dir = strndup(p, n);
                        char *candidate = dir ? path_join(dir, file) : NULL;
                        if (!candidate)
                                return -ENOMEM;
                        if (host_executable(candidate)) {
                                *ret = candidate;
                                return 0;
                        }
                        free(candidate);
                }
                if (!p[n])
                        return -ENOENT;
                p += n + 1;
        }
}

int cordon_exec_parse_shebang(const char *buf, size_t n, char **ret_interp, char **ret_arg)
{
        if (n < 2 || buf[0] != '#' || buf[1] != '!')
                return -ENOEXEC;
        const char *end = memchr(buf, '\n', n);
        if (!end)
                return -ENOEXEC;
        const char *p = buf + 2;
        while (p < end && (*p == ' ' || *p == '\t'))
                p++;
        const char *i = p;
        while (p < end && *p != ' ' && *p != '\t')
                p++;
        if (p == i)
                return -ENOEXEC;
        _cleanup_free_ char *interp = strndup(i, (size_t)(p - i));
        while (p < end && (*p == ' ' || *p == '\t'))
                p++;
        const char *a = p, *e = end;
        while (e > a && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
                e--;
        _cleanup_free_ char *arg = e > a ? strndup(a, (size_t)(e - a)) : NULL;
        if (!interp || (e > a && !arg))
                return -ENOMEM;
        *ret_interp = TAKE_PTR(interp);
        *ret_arg = TAKE_PTR(arg);
        return 0;
}

int cordon_exec_read_shebang(const char *path, char **ret_interp, char **ret_arg)
{
        /* Non-blocking: a FIFO put there must not stall the supervisor. */
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -ENOEXEC;
        /* The kernel reads at most 256 bytes of the line (BINPRM_BUF_SIZE). */
        char buf[256];
        ssize_t k = read(fd, buf, sizeof(buf));
        if (k < 0)
                return -errno;
        return cordon_exec_parse_shebang(buf, (size_t)k, ret_interp, ret_arg);
}
