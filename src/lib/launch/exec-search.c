/* Finding and executing the command between clone and exec: execvp() with the sandbox's PATH,
 * without allocating (the landlock backend's child shares the supervisor's memory). */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "lib/launch/exec-search.h"
#include "shared/macro.h"

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
