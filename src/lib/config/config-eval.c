/* Evaluating the configuration files in one confined bash child (see config-eval.h).
 *
 * Why the dumps can be trusted as far as they need to be: the child runs the admin file first
 * and dumps its values before any user code runs, and the parser (config-load.c) reads the
 * sections in order, so the admin section is complete before a user file could print anything.
 * User code runs in the same shell as the dumps after it and could forge or break them (redefine
 * `builtin`, print markers, exit early); that only forges the values of its own layer and those
 * after it, which are the same user's files, or breaks the dump, which is a refusal. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/config/config-eval.h"
#include "lib/policy/diag.h"
#include "lib/policy/policy.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"
#include "shared/strv.h"

/* @v in single quotes. */
static void put_quoted(FILE *f, const char *v)
{
        fputc('\'', f);
        for (const char *p = v; *p; p++)
                if (*p == '\'')
                        fputs("'\\''", f);
                else
                        fputc(*p, f);
        fputc('\'', f);
}

static void put_dump(FILE *f, size_t layer, const char *status)
{
        fprintf(f,
                "builtin printf '" CORDON_CONFIG_MARK_LAYER "%zu %%s\\n' %s\n"
                "builtin declare -p",
                layer, status);
        for (size_t i = 0; i < cordon_vars_count; i++)
                fprintf(f, " %s", cordon_vars[i].name);
        fputs(" 2>/dev/null\n", f);
}

char *cordon_config_script(const char *home, size_t n_files, bool admin)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        /* The file names cannot be changed by a file. */
        fputs("declare -ar __cordon_f=(\"$@\")\n", f);
        for (size_t i = 0; i < cordon_vars_count; i++) {
                const struct cordon_var *v = &cordon_vars[i];
                fprintf(f, "%s=", v->name);
                if (v->type == CORDON_VAR_LIST) {
                        fputc('(', f);
                        for (const char *const *d = v->defaults; d && *d; d++) {
                                const char *val = *d;
                                if (streq(val, "$HOME")) {
                                        if (!home || home[0] != '/')
                                                continue;
                                        val = home;
                                }
                                put_quoted(f, val);
                                fputc(' ', f);
                        }
                        fputc(')', f);
                } else
                        put_quoted(f, v->defaults && v->defaults[0] ? v->defaults[0] : "");
                fputc('\n', f);
        }
        put_dump(f, 0, "0");
        for (size_t k = 1; k <= n_files; k++) {
                /* The admin file's output is discarded, and anything on its stderr refuses; a
                 * user file's output is shown as a warning. */
                fprintf(f,
                        "builtin printf '\\n" CORDON_CONFIG_MARK_STDERR "%zu\\n' >&2\n"
                        "builtin source -- \"${__cordon_f[%zu]}\" %s\n"
                        /* A file may have left set -e, -u, -x, traps or IFS behind: undone
                         * before the dump, with every output of the undoing (a trace, a DEBUG
                         * trap's own output, which would land in the dump) sent nowhere. */
                        "{ __cordon_st=$?; builtin set +xveuo pipefail; "
                        "builtin trap - ERR DEBUG RETURN EXIT; } >/dev/null 2>&1\n",
                        k, k - 1, admin && k == 1 ? ">/dev/null" : ">&2");
                put_dump(f, k, "\"$__cordon_st\"");
        }
        fputs("builtin printf '" CORDON_CONFIG_MARK_END "\\n'\nbuiltin exit 0\n", f);
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

void cordon_config_output_clear(struct cordon_config_output *o)
{
        free(o->out);
        free(o->err);
        *o = (struct cordon_config_output){0};
}

static void policy_freep(struct cordon_policy **p)
{
        cordon_policy_free(*p);
}

static void sandbox_freep(struct cordon_sandbox **sb)
{
        cordon_sandbox_free(*sb);
}

/* The system directories, read-only; a merged-/usr symlink stays a symlink. */
static int add_system(struct cordon_policy *p)
{
        static const char *const dirs[] = {"/usr",   "/bin",   "/sbin",   "/lib",
                                           "/lib32", "/lib64", "/libx32", "/etc"};
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                struct stat st;
                if (lstat(dirs[i], &st) < 0)
                        continue;
                int r;
                if (S_ISLNK(st.st_mode)) {
                        char target[256];
                        ssize_t n = readlink(dirs[i], target, sizeof(target) - 1);
                        if (n <= 0)
                                continue;
                        target[n] = 0;
                        r = cordon_policy_add_fs(p, dirs[i], target, CORDON_ACCESS_SYMLINK, 0,
                                                 "config");
                } else if (S_ISDIR(st.st_mode))
                        r = cordon_policy_add_fs(p, dirs[i], dirs[i], CORDON_ACCESS_RO,
                                                 CORDON_FS_OPTIONAL, "config");
                else
                        continue;
                if (r < 0)
                        return r;
        }
        return cordon_policy_add_fs(p, "/dev", NULL, CORDON_ACCESS_DEV, 0, "config");
}

/* Is @dir below (or at) one of the system directories, or already added? */
static bool covered(const struct cordon_policy *p, const char *dir)
{
        for (size_t i = 0; i < p->n_fs; i++) {
                const char *g = p->fs[i].guest;
                size_t l = strlen(g);
                if (p->fs[i].access == CORDON_ACCESS_RO && strncmp(dir, g, l) == 0 &&
                    (dir[l] == 0 || dir[l] == '/'))
                        return true;
        }
        return false;
}

static int build_policy(const struct cordon_config_eval_args *a, struct cordon_policy **ret)
{
        _cleanup_(policy_freep) struct cordon_policy *p = cordon_policy_new();
        if (!p)
                return -ENOMEM;
        int r = add_system(p);
        if (r < 0)
                return r;
        for (size_t i = 0; i < a->n; i++) {
                _cleanup_free_ char *dir = strdup(a->paths[i]);
                if (!dir)
                        return -ENOMEM;
                char *slash = strrchr(dir, '/');
                if (!slash)
                        return -EINVAL;
                if (slash == dir)
                        slash[1] = 0;
                else
                        *slash = 0;
                if (!covered(p, dir) &&
                    (r = cordon_policy_add_fs(p, dir, dir, CORDON_ACCESS_RO, 0, "config")) < 0)
                        return r;
        }
        _cleanup_strv_free_ char **env = NULL;
        char *var = NULL;
        if (a->home && (asprintf(&var, "HOME=%s", a->home) < 0 || strv_consume(&env, var) < 0))
                return -ENOMEM;
        if (asprintf(&var, "_PROJECT_DIR=%s", strempty(a->project_dir)) < 0 ||
            strv_consume(&env, var) < 0)
                return -ENOMEM;
        if (asprintf(&var, "PATH=%s", a->path_env ? a->path_env : "/usr/local/bin:/usr/bin:/bin") <
                0 ||
            strv_consume(&env, var) < 0)
                return -ENOMEM;
        if ((r = cordon_policy_set_env(p, env)) < 0 || (r = cordon_policy_set_cwd(p, "/")) < 0 ||
            (r = cordon_policy_set_backend(p, a->backend)) < 0)
                return r;
        p->net_mode = CORDON_NET_ISOLATED;
        p->process.pty = false;
        /* Its pipes are read before the wait: nothing may wait on the supervisor's loop. */
        p->no_notify = true;
        /* Landlock and seccomp on top of the namespaces, required; see start_child() for a
         * host that lacks one of them. */
        p->fallback = CORDON_FALLBACK_ENFORCE;
        p->limits.pids = CORDON_CONFIG_EVAL_PIDS;
        /* Where the kernel allows, as the pid namespace's pid_max (at most 363 processes):
         * for uid 0, whom RLIMIT_NPROC does not bound, the alternative is a pids cgroup, whose
         * attach waits for an RCU grace period (3-14 ms here) on every start. */
        p->limits.pids_loose = true;
        *ret = TAKE_PTR(p);
        return 0;
}

/* Starts the child with its layers required. A host without one of them (a kernel before
 * Landlock) still reads configurations under the ns backend, whose namespaces confine the child
 * on their own (a read-only view of a few directories, no network, its own pids): there the
 * layers become best effort. Under the landlock backend the layers are all there is, so the
 * refusal stands: a configuration is never evaluated unconfined. */
static int start_child(struct cordon_policy *p, char *const *argv,
                       struct cordon_sandbox_options *opts, struct cordon_sandbox **ret,
                       struct cordon_diag *d)
{
        opts->flags |= CORDON_SANDBOX_RETURN_FAILED;
        int r = cordon_sandbox_start_with(p, argv, opts, ret, d);
        if (r != -EOPNOTSUPP || !*ret || cordon_sandbox_report(*ret)->backend != CORDON_BACKEND_NS)
                return r;
        *ret = cordon_sandbox_free(*ret);
        *d = (struct cordon_diag){0};
        p->fallback = CORDON_FALLBACK_WARN;
        return cordon_sandbox_start_with(p, argv, opts, ret, d);
}

static uint64_t now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Reads what is there from @fd into @buf (at most @max + 1 bytes in all). Returns 1 at end of
 * file, 0 otherwise, -errno. */
static int drain(int fd, char **buf, size_t *len, size_t max, bool *over)
{
        char chunk[65536];
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0)
                return errno == EAGAIN || errno == EINTR ? 0 : -errno;
        if (n == 0)
                return 1;
        size_t take = (size_t)n;
        if (*len + take > max) {
                *over = true;
                take = max - *len;
        }
        char *nb = realloc(*buf, *len + take + 1);
        if (!nb)
                return -ENOMEM;
        memcpy(nb + *len, chunk, take);
        *len += take;
        nb[*len] = 0;
        *buf = nb;
        return 0;
}

int cordon_config_eval(const struct cordon_config_eval_args *a, struct cordon_config_output *ret,
                       struct cordon_diag *diag)
{
        static const char *const shells[] = {"/bin/bash", "/usr/bin/bash"};
        const char *bash = NULL;
        for (size_t i = 0; i < ELEMENTSOF(shells) && !bash; i++)
                if (access(shells[i], X_OK) == 0)
                        bash = shells[i];
        if (!bash)
                return cordon_diag_set(diag, -ENOENT,
                                       "the configuration files are bash, and there is no "
                                       "/bin/bash to read them");
        _cleanup_free_ char *script = cordon_config_script(a->default_home, a->n, a->admin);
        if (!script)
                return -ENOMEM;
        _cleanup_(policy_freep) struct cordon_policy *p = NULL;
        int r = build_policy(a, &p);
        if (r < 0)
                return cordon_diag_set(diag, r, "cannot build the configuration child's policy: %s",
                                       strerror(-r));
        _cleanup_free_ char **argv = calloc(a->n + 7, sizeof(*argv));
        if (!argv)
                return -ENOMEM;
        size_t k = 0;
        char bash_arg[16], noprofile[] = "--noprofile", norc[] = "--norc", c[] = "-c",
                           name[] = "cordon-config";
        snprintf(bash_arg, sizeof(bash_arg), "%s", bash);
        argv[k++] = bash_arg;
        argv[k++] = noprofile;
        argv[k++] = norc;
        argv[k++] = c;
        argv[k++] = script;
        argv[k++] = name;
        for (size_t i = 0; i < a->n; i++)
                argv[k++] = a->paths[i];

        int outp[2] = {-EBADF, -EBADF}, errp[2] = {-EBADF, -EBADF};
        _cleanup_close_ int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (devnull < 0 || pipe2(outp, O_CLOEXEC | O_NONBLOCK) < 0 ||
            pipe2(errp, O_CLOEXEC | O_NONBLOCK) < 0) {
                r = -errno;
                safe_close(outp[0]);
                safe_close(outp[1]);
                return cordon_diag_set(diag, r, "cannot make the configuration child's pipes: %s",
                                       strerror(-r));
        }
        _cleanup_close_ int out_r = outp[0], err_r = errp[0];
        int out_w = outp[1], err_w = errp[1];
        struct cordon_sandbox_options opts = {
            .flags = CORDON_SANDBOX_STDIO,
            .stdio = {devnull, out_w, err_w},
        };
        _cleanup_(sandbox_freep) struct cordon_sandbox *sb = NULL;
        struct cordon_diag d = {0};
        r = start_child(p, argv, &opts, &sb, &d);
        safe_close(out_w);
        safe_close(err_w);
        if (r < 0)
                return cordon_diag_set(diag, r,
                                       "cannot start the child that reads the "
                                       "configuration files: %s",
                                       d.message);

        struct cordon_config_output o = {0};
        uint64_t deadline = now_usec() + CORDON_CONFIG_EVAL_TIMEOUT_USEC;
        bool out_eof = false, err_eof = false;
        while (!out_eof || !err_eof) {
                uint64_t now = now_usec();
                if (now >= deadline) {
                        o.timed_out = true;
                        break;
                }
                struct pollfd pfd[2] = {{.fd = out_eof ? -1 : out_r, .events = POLLIN},
                                        {.fd = err_eof ? -1 : err_r, .events = POLLIN}};
                int n = poll(pfd, 2, (int)((deadline - now + 999) / 1000));
                if (n < 0 && errno != EINTR) {
                        r = -errno;
                        break;
                }
                if (!out_eof && pfd[0].revents) {
                        r = drain(out_r, &o.out, &o.out_len, CORDON_CONFIG_EVAL_STDOUT_MAX,
                                  &o.out_over);
                        if (r < 0)
                                break;
                        out_eof = r > 0;
                }
                if (!err_eof && pfd[1].revents) {
                        r = drain(err_r, &o.err, &o.err_len, CORDON_CONFIG_EVAL_STDERR_MAX,
                                  &o.err_over);
                        if (r < 0)
                                break;
                        err_eof = r > 0;
                }
                r = 0;
                if (o.out_over || o.err_over)
                        break;
        }
        if (r < 0 || o.timed_out || o.out_over || o.err_over)
                (void)cordon_sandbox_kill(sb, SIGKILL);
        int status = 0;
        int w = cordon_sandbox_wait(sb, &status);
        if (r < 0 || (w < 0 && !o.timed_out)) {
                cordon_config_output_clear(&o);
                r = r < 0 ? r : w;
                return cordon_diag_set(diag, r, "reading the configuration child's output: %s",
                                       strerror(-r));
        }
        o.status = status;
        if ((!o.out && !(o.out = strdup(""))) || (!o.err && !(o.err = strdup("")))) {
                cordon_config_output_clear(&o);
                return -ENOMEM;
        }
        *ret = o;
        return 0;
}
