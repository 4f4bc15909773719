/* cordon-chaperon's main(): started by a sandbox's supervisor (lib/slurm/slurm-doorbell.c) with
 * the doorbell on descriptor 3 and its configuration on 4. Each ring brings one end of a stub's
 * own socket pair, served by a process of its own, so that a slow command (srun) holds no other
 * call up. It ends once the doorbell's end of file says every process of the sandbox has gone,
 * after its calls. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "lib/slurm/slurm-names.h"
#include "shared/fd-util.h"
#include "shared/path-util.h"
#include "slurm/chaperon.h"

#define DOORBELL_FD 3
#define CONFIG_FD   4
#define CONFIG_MAX  (1u << 20)
/* The most calls served at once: a sandbox that rings faster waits for one to end. */
#define CALLS_MAX 32

static const char *const scopes[] = {"session", "project", "user", "none", NULL};

void chaperon_config_clear(struct chaperon_config *c)
{
        free(c->session);
        free(c->project);
        free(c->user);
        cordon_list_clear(&c->read_roots);
        cordon_list_clear(&c->write_roots);
        cordon_list_clear(&c->blocked_env);
        cordon_list_clear(&c->blocked_env_pat);
        free(c->cordon);
        for (char **a = c->wrap_args; a && *a; a++)
                free(*a);
        free(c->wrap_args);
        free(c->state_dir);
        free(c->net_mode);
        cordon_chaperon_log_free(c->log);
        *c = (struct chaperon_config){0};
}

static int get_list(json_t *o, const char *key, struct cordon_list *l)
{
        json_t *a = json_object_get(o, key), *v;
        size_t i;
        if (!json_is_array(a))
                return -EINVAL;
        json_array_foreach(a, i, v)
        {
                if (!json_is_string(v))
                        return -EINVAL;
                int r = cordon_list_add(l, json_string_value(v), "chaperon");
                if (r < 0)
                        return r;
        }
        return 0;
}

static int get_string(json_t *o, const char *key, char **ret)
{
        const char *v = json_string_value(json_object_get(o, key));
        if (!v)
                return -EINVAL;
        return (*ret = strdup(v)) ? 0 : -ENOMEM;
}

int chaperon_config_read(int fd, struct chaperon_config *c, char *why, size_t why_size)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = read_full_fd(fd, CONFIG_MAX, &text, &len);
        if (r < 0) {
                snprintf(why, why_size, "cannot read the configuration: %s", strerror(-r));
                return r;
        }
        json_error_t e;
        json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
        if (!json_is_object(o)) {
                snprintf(why, why_size, "the configuration is not a JSON object: %s", e.text);
                json_decref(o);
                return -EINVAL;
        }
        const char *scope = json_string_value(json_object_get(o, "scope"));
        c->scope = -1;
        for (int i = 0; scope && scopes[i]; i++)
                if (streq(scope, scopes[i]))
                        c->scope = i;
        json_t *uid = json_object_get(o, "uid");
        json_t *level = json_object_get(o, "log_level"),
               *days = json_object_get(o, "log_retain_days");
        r = c->scope < 0 || !json_is_integer(uid) || !json_is_integer(level) ||
                    json_integer_value(level) < 0 ||
                    json_integer_value(level) >= _CORDON_CHAPERON_LEVEL_MAX ||
                    !json_is_integer(days) || json_integer_value(days) < 0
                ? -EINVAL
                : 0;
        if (r >= 0) {
                c->uid = (uid_t)json_integer_value(uid);
                c->log_level = (int)json_integer_value(level);
                c->log_retain_days = (uint64_t)json_integer_value(days);
        }
        if (r >= 0)
                r = get_string(o, "session", &c->session);
        if (r >= 0)
                r = get_string(o, "project", &c->project);
        if (r >= 0)
                r = get_string(o, "user", &c->user);
        if (r >= 0)
                r = get_list(o, "read_roots", &c->read_roots);
        if (r >= 0)
                r = get_list(o, "write_roots", &c->write_roots);
        if (r >= 0)
                r = get_list(o, "blocked_env", &c->blocked_env);
        if (r >= 0)
                r = get_list(o, "blocked_env_patterns", &c->blocked_env_pat);
        /* The wrapper that confines a job on the node as the sandbox was: cordon run with the
         * same project, backend and network mode (the node reads the same configuration files
         * from the same home). */
        const char *backend = json_string_value(json_object_get(o, "backend"));
        const char *net = json_string_value(json_object_get(o, "net_mode"));
        if (r >= 0 && (!backend || !net))
                r = -EINVAL;
        const char *const wrap[] = {"run",       "-q",    "--project-dir", c->project,
                                    "--backend", backend, "--net",         net};
        if (r >= 0 && !(c->wrap_args = calloc(ELEMENTSOF(wrap) + 1, sizeof(char *))))
                r = -ENOMEM;
        for (size_t k = 0; r >= 0 && k < ELEMENTSOF(wrap); k++)
                if (!(c->wrap_args[k] = strdup(wrap[k])))
                        r = -ENOMEM;
        if (r >= 0 && !(c->net_mode = strdup(net)))
                r = -ENOMEM;
        json_decref(o);
        if (r < 0)
                snprintf(why, why_size, "the configuration lacks a key or has a wrong type: %s",
                         strerror(-r));
        return r;
}

/* The cordon program that wraps a job: beside this chaperon in an install into one directory,
 * in the build tree (build/src/slurm/ and build/src/cli/cordon), else the install's bin
 * directory (libexecdir's sibling). */
static int find_cordon(struct chaperon_config *c)
{
        char path[PATH_MAX + 16];
        int r = find_sibling_program("cordon", "slurm", "cli", path, sizeof(path));
        if (r < 0) {
                char self[PATH_MAX];
                if ((r = self_exe_dir(self, sizeof(self))) < 0)
                        return r;
                snprintf(path, sizeof(path), "%s/../bin/cordon", self);
        }
        char *real = realpath(path, NULL);
        if (!real || access(real, X_OK) < 0) {
                free(real);
                return -ENOENT;
        }
        c->cordon = real;
        return 0;
}

/* The session's log (CHAPERON_LOG_LEVEL, CHAPERON_LOG_RETAIN_DAYS): a chaperon that cannot
 * keep one still serves, and says so on stderr, which is the supervisor's. Its directory is
 * also the chaperon's state directory (the job registry, the jobs' scripts). */
static void open_log(struct chaperon_config *c)
{
        const char *base = NULL, *sub = NULL;
        struct cordon_diag diag = {0};
        int r =
            cordon_chaperon_log_dir(getenv("XDG_STATE_HOME"), getenv("HOME"), &base, &sub, &diag);
        if (r >= 0 && asprintf(&c->state_dir, "%s/%s", base, sub) < 0)
                r = -ENOMEM;
        if (r >= 0) {
                struct cordon_chaperon_log_options o = {.base_dir = base,
                                                        .sub_dir = sub,
                                                        .level = c->log_level,
                                                        .retain_days = c->log_retain_days};
                r = cordon_chaperon_log_open(&o, &c->log, &diag);
        }
        if (r < 0)
                fprintf(stderr, "cordon-chaperon: no log for this session: %s\n", diag.message);
}

/* Takes the stub's end from a ring: 1 and the descriptor, 0 at the end of file, -EAGAIN for a
 * message that is not a ring with one SOCK_SEQPACKET socket (its descriptor closed), -errno. */
static int take_ring(int doorbell, int *ret)
{
        char tag = 0;
        int fd = fd_recv(doorbell, &tag);
        if (fd == -EPIPE) {
                /* A zero-length message is no ring; the end of file is a read of 0 too: ask. */
                char c;
                ssize_t n = recv(doorbell, &c, 1, MSG_PEEK | MSG_DONTWAIT);
                return n == 0 ? 0 : -EAGAIN;
        }
        if (fd == -EINTR || fd == -ENOENT || fd == -EBADMSG)
                return -EAGAIN;
        if (fd < 0)
                return fd;
        int type = 0;
        socklen_t tl = sizeof(type);
        if (tag != CORDON_CHAPERON_RING || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 ||
            type != SOCK_SEQPACKET) {
                close(fd);
                return -EAGAIN;
        }
        *ret = fd;
        return 1;
}

static void reap(size_t *calls, bool block)
{
        for (;;) {
                pid_t p = waitpid(-1, NULL, block ? 0 : WNOHANG);
                if (p <= 0)
                        return;
                if (*calls > 0)
                        (*calls)--;
                block = false;
        }
}

int main(int argc, char **argv)
{
        (void)argc;
        (void)argv;
        /* Gone with the supervisor: a sandbox without one has ended. */
        (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
        struct chaperon_config c = {0};
        char why[512];
        if (chaperon_config_read(CONFIG_FD, &c, why, sizeof(why)) < 0) {
                fprintf(stderr, "cordon-chaperon: %s\n", why);
                return 1;
        }
        close(CONFIG_FD);
        open_log(&c);
        if (!c.state_dir || find_cordon(&c) < 0) {
                fprintf(stderr, "cordon-chaperon: %s\n",
                        !c.state_dir ? "no state directory (HOME is not set)"
                                     : "the cordon program that confines jobs is not found");
                return 1;
        }
        (void)cordon_chaperon_log_line(c.log, CORDON_CHAPERON_INFO,
                                       "started: session %s, project %s, scope %s", c.session,
                                       c.project, scopes[c.scope]);
        size_t calls = 0;
        for (;;) {
                if (calls >= CALLS_MAX)
                        reap(&calls, true);
                struct pollfd pfd = {.fd = DOORBELL_FD, .events = POLLIN};
                int k = poll(&pfd, 1, calls ? 100 : -1);
                reap(&calls, false);
                if (k <= 0)
                        continue;
                int fd = -1;
                int r = take_ring(DOORBELL_FD, &fd);
                if (r == -EAGAIN)
                        continue;
                if (r <= 0)
                        break;
                pid_t pid = fork();
                if (pid == 0) {
                        close(DOORBELL_FD);
                        _exit(chaperon_call(&c, fd));
                }
                close(fd);
                if (pid > 0)
                        calls++;
        }
        while (calls > 0)
                reap(&calls, true);
        (void)cordon_chaperon_log_line(c.log, CORDON_CHAPERON_INFO, "stopped: the sandbox ended");
        chaperon_config_clear(&c);
        return 0;
}
