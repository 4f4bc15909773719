/* SANDBOX_MODULES: Lmod modules loaded before the sandbox starts, for dependencies of the
 * sandbox (a newer tool only reachable through `module load`). A child bash sources Lmod's init,
 * loads each module and prints its environment (env -0); the PATH-like variables the modules
 * changed are carried into the sandbox's environment (and so into the lookup of the command).
 * Lmod absent: one note line and the sandbox starts without them (a configuration shared with
 * a machine that has no Lmod). Lmod present and a module that does not load: refused, naming
 * the module. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/mech/host-program.h"
#include "lib/policy/diag.h"
#include "lib/resolve/lower-internal.h"
#include "lib/settings/settings.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

#define MODULES_TIMEOUT_MS 30000
#define MODULES_OUTPUT_MAX (4u << 20)

/* Where Lmod's init is looked for, in order (the spec's list). */
static const char *const lmod_inits[] = {
    "/etc/profile.d/lmod.sh",
    "/usr/share/lmod/lmod/init/sh",
    "/app/lmod/lmod/init/sh",
};

/* The bash program: $1 the init ("" when `module` came as a function in the environment), the
 * modules after it. Exit 97: the init failed; 98: a module did not load (its name on stdout
 * after "\0FAIL\0"). */
static const char lmod_script[] =
    "[ -z \"$1\" ] || . \"$1\" >/dev/null 2>&1 || exit 97\n"
    "shift\n"
    "for m; do module load \"$m\" >/dev/null 2>&1 || { printf '\\0FAIL\\0%s' \"$m\"; exit 98; }; "
    "done\n"
    "exec env -0\n";

/* What the modules may change that is carried in: search paths and Lmod's own bookkeeping,
 * plus the *_ROOT and EasyBuild EBROOT and EBVERSION variables modules set for builds. */
static bool carried(const char *name, size_t len)
{
        static const char *const names[] = {
            "PATH",         "LD_LIBRARY_PATH", "MANPATH",    "PKG_CONFIG_PATH", "CPATH",
            "LIBRARY_PATH", "PYTHONPATH",      "MODULEPATH", "LOADEDMODULES",   "_LMFILES_",
        };
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (strlen(names[i]) == len && strncmp(names[i], name, len) == 0)
                        return true;
        if (len > 5 && strncmp(name + len - 5, "_ROOT", 5) == 0)
                return true;
        return (len > 6 && strncmp(name, "EBROOT", 6) == 0) ||
               (len > 9 && strncmp(name, "EBVERSION", 9) == 0);
}

static const char *env_get(char *const *envp, const char *name, size_t len)
{
        for (char *const *e = envp; e && *e; e++)
                if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
                        return *e + len + 1;
        return NULL;
}

/* The init to source: CORDON_LMOD_INIT from the environment (for tests: an init of another
 * path), else the first of lmod_inits[] that exists; "" when `module` is a function exported in
 * the environment already; NULL when there is no Lmod. *@ret_variable: what chose it.
 *
 * The init runs on the host, outside the sandbox, so it is held to the host-program rule
 * (host-program.h) wherever it comes from, CORDON_LMOD_INIT included: root's, in directories
 * only root can write. The environment may name it as the command line may: both are the
 * caller's own shell's, which no sandbox writes (its start-up files, ~/.bashrc and ~/.profile,
 * are HOME_READONLY, and a sandbox that could write them would run code on the host anyway);
 * the files a sandbox could have planted (sandbox.conf, conf.d) cannot name a program at all
 * (config-load.c). The function `module` exported in the environment is that shell's too. */
static const char *find_init(char *const *envp, const char **ret_variable)
{
        const char *o = env_get(envp, "CORDON_LMOD_INIT", strlen("CORDON_LMOD_INIT"));
        *ret_variable = "SANDBOX_MODULES";
        if (o && *o) {
                *ret_variable = "CORDON_LMOD_INIT";
                return o;
        }
        for (size_t i = 0; i < ELEMENTSOF(lmod_inits); i++)
                if (access(lmod_inits[i], R_OK) == 0)
                        return lmod_inits[i];
        return env_get(envp, "BASH_FUNC_module%%", strlen("BASH_FUNC_module%%")) ? "" : NULL;
}

static long long now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The descriptor bash reads the init from: the file that was checked, whatever its path names
 * by then. */
#define INIT_FD 3

/* Runs the script with @envp, sourcing the init open at @init_fd (-EBADF: none, the `module`
 * function of the environment); the output in *@ret (NUL-separated, *@ret_len bytes) and the
 * exit status in *@ret_status, or -errno (-ETIMEDOUT, -EFBIG). */
static int run_lmod(int init_fd, const struct cordon_list *modules, char *const *envp, char **ret,
                    size_t *ret_len, int *ret_status)
{
        char init[32] = "";
        if (init_fd >= 0)
                snprintf(init, sizeof(init), "/dev/fd/%d", INIT_FD);
        _cleanup_strv_free_ char **argv = NULL;
        if (strv_extend(&argv, "bash") < 0 || strv_extend(&argv, "--noprofile") < 0 ||
            strv_extend(&argv, "--norc") < 0 || strv_extend(&argv, "-c") < 0 ||
            strv_extend(&argv, lmod_script) < 0 || strv_extend(&argv, "cordon-lmod") < 0 ||
            strv_extend(&argv, init) < 0)
                return -ENOMEM;
        CORDON_LIST_FOREACH (it, modules)
                if (strv_extend(&argv, it->value) < 0)
                        return -ENOMEM;
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) < 0)
                return -errno;
        _cleanup_close_ int rd = fds[0];
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
        posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
        if (init_fd >= 0)
                posix_spawn_file_actions_adddup2(&fa, init_fd, INIT_FD);
        pid_t pid;
        int r = posix_spawn(&pid, "/bin/bash", &fa, NULL, argv, envp);
        posix_spawn_file_actions_destroy(&fa);
        close(fds[1]);
        if (r != 0)
                return -r;
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, cap = 0;
        long long deadline = now_ms() + MODULES_TIMEOUT_MS;
        for (;;) {
                long long left = deadline - now_ms();
                struct pollfd p = {.fd = rd, .events = POLLIN};
                int k = left > 0 ? poll(&p, 1, (int)left) : 0;
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0) {
                        r = k < 0 ? -errno : -ETIMEDOUT;
                        break;
                }
                if (len + 65536 > cap) {
                        if (cap >= MODULES_OUTPUT_MAX) {
                                r = -EFBIG;
                                break;
                        }
                        char *n = realloc(buf, cap += 65536);
                        if (!n) {
                                r = -ENOMEM;
                                break;
                        }
                        buf = n;
                }
                ssize_t n = read(rd, buf + len, cap - len - 1);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        r = n < 0 ? -errno : 0;
                        break;
                }
                len += (size_t)n;
        }
        if (r < 0)
                kill(pid, SIGKILL);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        if (r < 0)
                return r;
        if (!buf && !(buf = calloc(1, 1)))
                return -ENOMEM;
        buf[len] = 0;
        *ret = TAKE_PTR(buf);
        *ret_len = len;
        *ret_status = status;
        return 0;
}

int cordon_lower_modules(struct lower *l, struct cordon_list *set)
{
        const struct cordon_list *modules = &l->s->sandbox_modules;
        if (modules->n == 0)
                return 0;
        char *const *envp = l->h->envp;
        const char *variable = NULL;
        const char *init = find_init(envp, &variable);
        const char *first_origin = modules->items ? modules->items[0].origin : "";
        if (!init) {
                char list[512] = "";
                CORDON_LIST_FOREACH (it, modules)
                        if (strlen(list) + strlen(it->value) + 3 < sizeof(list))
                                strcat(strcat(list, *list ? ", " : ""), it->value);
                return cordon_lower_warn(l,
                                         "SANDBOX_MODULES (%s, from %s): Lmod was not found "
                                         "(/etc/profile.d/lmod.sh, /usr/share/lmod/lmod/init/sh, "
                                         "/app/lmod/lmod/init/sh, or a module function); "
                                         "starting without them",
                                         list, first_origin);
        }
        _cleanup_close_ int init_fd = -EBADF;
        int r;
        if (*init && (r = cordon_host_program_open(init, variable, &init_fd, l->diag)) < 0)
                return r;
        /* Above INIT_FD, so that the child's dup2()s of 0-2 and 3 cannot overwrite it first. */
        if (init_fd >= 0 && init_fd <= INIT_FD) {
                int moved = fcntl(init_fd, F_DUPFD_CLOEXEC, INIT_FD + 1);
                if (moved < 0)
                        return -errno;
                safe_close(init_fd);
                init_fd = moved;
        }
        _cleanup_free_ char *out = NULL;
        size_t len = 0;
        int status = 0;
        r = run_lmod(init_fd, modules, envp, &out, &len, &status);
        if (r < 0)
                return cordon_diag_set(l->diag, r, "SANDBOX_MODULES: running Lmod (%s) failed: %s",
                                       *init ? init : "module function",
                                       r == -ETIMEDOUT ? "it did not finish within 30 seconds"
                                                       : strerror(-r));
        if (WIFEXITED(status) && WEXITSTATUS(status) == 98) {
                const char *m = NULL;
                for (size_t i = 0; i + 6 <= len; i++)
                        if (memcmp(out + i, "\0FAIL\0", 6) == 0)
                                m = out + i + 6;
                const char *origin = first_origin;
                CORDON_LIST_FOREACH (it, modules)
                        if (m && streq(it->value, m))
                                origin = it->origin;
                return cordon_diag_set(l->diag, -ENOENT,
                                       "SANDBOX_MODULES entry '%s' (from %s) could not be loaded "
                                       "with Lmod (%s); refusing to start without it",
                                       strempty(m), origin, *init ? init : "module function");
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return cordon_diag_set(l->diag, -EIO,
                                       "SANDBOX_MODULES: sourcing Lmod's init '%s' failed "
                                       "(status %d)",
                                       init, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        for (const char *e = out; e < out + len; e += strlen(e) + 1) {
                const char *eq = strchr(e, '=');
                if (!eq || eq == e)
                        continue;
                size_t n = (size_t)(eq - e);
                if (!carried(e, n))
                        continue;
                const char *before = env_get(envp, e, n);
                if (before && streq(before, eq + 1))
                        continue;
                if ((r = cordon_list_add(set, e, "SANDBOX_MODULES")) < 0)
                        return r;
        }
        return 0;
}
