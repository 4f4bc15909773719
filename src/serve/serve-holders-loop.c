/* cordon-serve's sessions (see serve-holders.h): the table's life (new, free) and the loop's
 * hooks: the deadlines of starts and ends, and SIGCHLD's reaping. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "serve/serve-holders-internal.h"
#include "shared/log.h"
#include "shared/macro.h"

int64_t serve_holders_timeout(struct serve_holders *h)
{
        uint64_t now = serve_now_usec(), next = UINT64_MAX;
        for (struct serve_session *s = h->first; s; s = s->next)
                if (s->deadline && s->deadline < next)
                        next = s->deadline;
        for (struct serve_session *s = h->dying; s; s = s->next)
                if (s->deadline && s->deadline < next)
                        next = s->deadline;
        if (next == UINT64_MAX)
                return -1;
        return next <= now ? 0 : (int64_t)((next - now + 999) / 1000);
}

void serve_holders_tick(struct serve_holders *h)
{
        uint64_t now = serve_now_usec();
        for (struct serve_session *s = h->first, *n; s; s = n) {
                n = s->next;
                if (s->state == SESSION_STARTING && s->deadline && s->deadline <= now) {
                        char why[96];
                        snprintf(why, sizeof(why), "its holder was not ready within %d s",
                                 SERVE_HOLDER_START_SEC);
                        serve_session_lost(s, why);
                }
        }
        for (struct serve_session *s = h->dying; s; s = s->next)
                if (s->deadline && s->deadline <= now) {
                        /* It had its time to end: killed; its exit still frees it. */
                        log_warning("session %s: its holder (pid %d) did not end; killed", s->id,
                                    (int)s->pid);
                        if (s->pidfd >= 0)
                                (void)serve_pidfd_signal(s->pidfd, SIGKILL);
                        s->deadline = 0;
                }
}

/* The session, in the table or ending, whose holder is @pid; NULL. */
static struct serve_session *session_of_pid(struct serve_holders *h, pid_t pid)
{
        for (struct serve_session *s = h->first; s; s = s->next)
                if (s->pid == pid)
                        return s;
        for (struct serve_session *s = h->dying; s; s = s->next)
                if (s->pid == pid)
                        return s;
        return NULL;
}

void serve_holders_reap(struct serve_holders *h)
{
        int status;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
                /* A holder ends with 0 (after a terminate or a SIGTERM, having cleaned up);
                 * anything else is said, for whoever reads why a session went away. */
                if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                        continue;
                struct serve_session *s = session_of_pid(h, pid);
                if (WIFSIGNALED(status))
                        log_warning("holder pid %d%s%s was killed by signal %d", (int)pid,
                                    s ? " of session " : "", s ? s->id : "", WTERMSIG(status));
                else
                        log_warning("holder pid %d%s%s exited with status %d", (int)pid,
                                    s ? " of session " : "", s ? s->id : "", WEXITSTATUS(status));
        }
}

int serve_holders_new(struct serve_loop *loop, struct serve_store *store,
                      const struct serve_holders_options *o, struct serve_holders **ret)
{
        struct serve_holders *h = calloc(1, sizeof(*h));
        if (!h)
                return -ENOMEM;
        h->loop = loop;
        h->store = store;
        h->o = *o;
        h->o.program = h->program = strdup(o->program);
        if (!h->program) {
                free(h);
                return -ENOMEM;
        }
        /* Two descriptors per session and the clients': the soft limit goes up to the hard
         * one; each holder gets the limit we were given back. */
        if (getrlimit(RLIMIT_NOFILE, &h->nofile) == 0) {
                struct rlimit up = {.rlim_cur = h->nofile.rlim_max, .rlim_max = h->nofile.rlim_max};
                (void)setrlimit(RLIMIT_NOFILE, &up);
        } else
                h->nofile = (struct rlimit){.rlim_cur = 1024, .rlim_max = 1024};
        *ret = h;
        return 0;
}

struct serve_holders *serve_holders_free(struct serve_holders *h)
{
        if (!h)
                return NULL;
        for (struct serve_session *s = h->first, *n; s; s = n) {
                n = s->next;
                serve_session_free(s);
        }
        for (struct serve_session *s = h->dying, *n; s; s = n) {
                n = s->next;
                serve_session_free(s);
        }
        free(h->program);
        free(h);
        return NULL;
}
