/* The supervisor's side of the chaperon (slurm-doorbell.h): the doorbell pair made at prepare,
 * its sandbox end handed to the command (CORDON_SLURM_FD, not close-on-exec in the child), and
 * the chaperon program started on the host the first time a stub rings, with the doorbell as
 * its descriptor 3 and what it must know of the policy as JSON on 4. Nothing runs, and nothing
 * is paid but a socket pair, for a sandbox that never calls Slurm. */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "lib/launch/launch.h"
#include "lib/launch/sandbox-internal.h"
#include "lib/loop/loop.h"
#include "lib/policy/diag.h"
#include "lib/policy/policy.h"
#include "lib/launch/slurm-doorbell.h"
#include "lib/slurm/slurm-names.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

static const char *const scopes[] = {"session", "project", "user", "none"};

static json_t *list_json(const struct cordon_list *l)
{
        json_t *a = json_array();
        for (size_t i = 0; a && i < l->n; i++)
                if (json_array_append_new(a, json_string(l->items[i].value)) < 0) {
                        json_decref(a);
                        return NULL;
                }
        return a;
}

/* What the chaperon needs of @p, but the wrapper's backend and network mode (known at spawn). */
static json_t *config_json(const struct cordon_policy *p)
{
        json_t *o = json_object(), *rd = json_array(), *wr = json_array();
        if (!o || !rd || !wr) {
                json_decref(o);
                json_decref(rd);
                json_decref(wr);
                return NULL;
        }
        json_object_set_new(o, "read_roots", rd);
        json_object_set_new(o, "write_roots", wr);
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *r = &p->fs[i];
                if (!r->host || strcmp(r->host, r->guest) != 0)
                        continue;
                if (r->access == CORDON_ACCESS_RW)
                        json_array_append_new(wr, json_string(r->guest));
                if (r->access == CORDON_ACCESS_RO || r->access == CORDON_ACCESS_RW)
                        json_array_append_new(rd, json_string(r->guest));
        }
        char user[256] = "";
        struct passwd pw, *res = NULL;
        char buf[4096];
        if (getpwuid_r(geteuid(), &pw, buf, sizeof(buf), &res) == 0 && res)
                snprintf(user, sizeof(user), "%s", res->pw_name);
        char session[64];
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(session, sizeof(session), "%d-%lld%09ld", getpid(), (long long)ts.tv_sec,
                 ts.tv_nsec);
        json_t *be = list_json(&p->env_rules.blocked_names);
        json_t *bp = list_json(&p->env_rules.blocked_patterns);
        if (!be || !bp || !*user || !p->project_dir || p->slurm.scope < 0 || p->slurm.scope > 3) {
                json_decref(be);
                json_decref(bp);
                json_decref(o);
                return NULL;
        }
        json_object_set_new(o, "blocked_env", be);
        json_object_set_new(o, "blocked_env_patterns", bp);
        json_object_set_new(o, "scope", json_string(scopes[p->slurm.scope]));
        json_object_set_new(o, "log_level", json_integer(p->slurm.log_level));
        json_object_set_new(o, "log_retain_days",
                            json_integer((json_int_t)p->slurm.log_retain_days));
        json_object_set_new(o, "session", json_string(session));
        json_object_set_new(o, "project", json_string(p->project_dir));
        json_object_set_new(o, "user", json_string(user));
        json_object_set_new(o, "uid", json_integer(geteuid()));
        json_t *baked = json_array();
        STRV_FOREACH (kv, p->slurm.settings)
                if (!baked || json_array_append_new(baked, json_string(*kv)) < 0) {
                        json_decref(baked);
                        json_decref(o);
                        return NULL;
                }
        json_object_set_new(o, "settings", baked);
        return o;
}

int cordon_chaperon_prepare(struct cordon_launch *l, const struct cordon_policy *p,
                            struct cordon_diag *diag)
{
        if (!p->slurm.chaperon || !p->slurm.paths || l->slurm.config)
                return 0;
        json_t *o = config_json(p);
        if (!o)
                return cordon_diag_set(diag, -ENOMEM,
                                       "SLURM_SCOPE: cannot describe the policy to the chaperon "
                                       "(no user name or project directory)");
        l->slurm.config = o;
        if (!(l->slurm.program = strdup(p->slurm.chaperon)))
                return -ENOMEM;
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, l->slurm.fd) < 0)
                return cordon_diag_set(diag, -errno,
                                       "SLURM_SCOPE: cannot make the chaperon's doorbell: %m");
        return 0;
}

int cordon_chaperon_env(const struct cordon_launch *l, char **ret)
{
        *ret = NULL;
        if (l->slurm.fd[1] < 0)
                return 0;
        return asprintf(ret, "%s=%d", CORDON_SLURM_FD_ENV, l->slurm.fd[1]) < 0 ? -ENOMEM : 0;
}

int cordon_chaperon_child_step(const struct cordon_launch *l)
{
        if (l->slurm.fd[1] < 0)
                return 0;
        if (l->slurm.fd[0] >= 0)
                (void)close(l->slurm.fd[0]);
        return fcntl(l->slurm.fd[1], F_SETFD, 0) < 0 ? -errno : 0;
}

/* The chaperon's configuration in a memfd, for its descriptor 4: the policy's part and how the
 * sandbox was delivered (its backend and network mode), which a job's confinement repeats. */
static int config_fd(struct cordon_launch *l)
{
        json_t *o = l->slurm.config;
        if (json_object_set_new(o, "backend", json_string(cordon_backend_to_string(l->backend))) <
                0 ||
            json_object_set_new(o, "net_mode",
                                json_string(cordon_net_mode_to_string(l->net_mode))) < 0)
                return -ENOMEM;
        _cleanup_free_ char *text = json_dumps(o, JSON_COMPACT);
        if (!text)
                return -ENOMEM;
        _cleanup_close_ int fd = memfd_create("cordon-chaperon", MFD_CLOEXEC);
        if (fd < 0)
                return -errno;
        int r = write_all(fd, text, strlen(text));
        if (r < 0)
                return r;
        if (lseek(fd, 0, SEEK_SET) < 0)
                return -errno;
        return TAKE_FD(fd);
}

static int spawn(struct cordon_sandbox *sb)
{
        struct cordon_launch *l = &sb->l;
        _cleanup_close_ int cfg = config_fd(l);
        if (cfg < 0)
                return cfg;
        pid_t parent = getpid();
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                /* Descriptors 3 and 4, nothing else: the doorbell and the configuration. */
                sigset_t none;
                sigemptyset(&none);
                sigprocmask(SIG_SETMASK, &none, NULL);
                int db = fcntl(l->slurm.fd[0], F_DUPFD_CLOEXEC, 10);
                int cf = fcntl(cfg, F_DUPFD_CLOEXEC, 10);
                if (db < 0 || cf < 0 || dup2(db, 3) < 0 || dup2(cf, 4) < 0)
                        _exit(127);
                int keep[] = {0, 1, 2, 3, 4};
                if (close_all_fds_except(keep, ELEMENTSOF(keep)) < 0 || getppid() != parent)
                        _exit(127);
                char *argv[] = {l->slurm.program, NULL};
                execv(l->slurm.program, argv);
                _exit(127);
        }
        l->slurm.pid = pid;
        return 0;
}

static int on_ring(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)fd;
        (void)revents;
        struct cordon_sandbox *sb = userdata;
        struct cordon_launch *l = &sb->l;
        /* Once: from here on the chaperon reads the doorbell itself. */
        l->slurm.io = cordon_loop_io_free(io);
        /* The end of file (every process of the sandbox gone, no ring) is readable too: no
         * chaperon then. */
        char c;
        ssize_t n = recv(l->slurm.fd[0], &c, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR))) {
                l->slurm.fd[0] = safe_close(l->slurm.fd[0]);
                return 0;
        }
        int r = spawn(sb);
        if (r < 0 && l->warn) {
                char m[256];
                snprintf(m, sizeof(m),
                         "SLURM_SCOPE: cannot start the chaperon %s: %s; the sandbox's Slurm "
                         "commands get no answer",
                         l->slurm.program, strerror(-r));
                l->warn(l->userdata, m);
        }
        /* Its copy is the chaperon's; ours goes, so that its end of file means the sandbox's. */
        l->slurm.fd[0] = safe_close(l->slurm.fd[0]);
        return 0;
}

int cordon_chaperon_watch(struct cordon_sandbox *sb)
{
        struct cordon_launch *l = &sb->l;
        if (l->slurm.fd[0] < 0)
                return 0;
        l->slurm.fd[1] = safe_close(l->slurm.fd[1]);
        return cordon_loop_add_io(sb->loop, l->slurm.fd[0], EPOLLIN, on_ring, sb, &l->slurm.io);
}

void cordon_chaperon_clear(struct cordon_launch *l)
{
        l->slurm.io = cordon_loop_io_free(l->slurm.io);
        l->slurm.fd[0] = safe_close(l->slurm.fd[0]);
        l->slurm.fd[1] = safe_close(l->slurm.fd[1]);
        json_decref(l->slurm.config);
        l->slurm.config = NULL;
        free(l->slurm.program);
        l->slurm.program = NULL;
        /* Reaped without waiting: it ends on its own once the sandbox's end of the doorbell is
         * closed (after its calls), or by its parent-death signal. */
        if (l->slurm.pid > 0)
                (void)waitpid(l->slurm.pid, NULL, WNOHANG);
        l->slurm.pid = 0;
}
