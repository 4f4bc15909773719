/* cordon-serve's re-adoption (see serve-holders.h): at start-up, every session the store has a
 * directory for is either taken back (its holder verified as holder-proto.h says) or, when its
 * holder is gone, what it left is removed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve-holders-internal.h"
#include "shared/fd-util.h"
#include "shared/log.h"
#include "shared/macro.h"

/* The holder of @rec is alive and the same process that wrote it: its pidfd (pinning the
 * process) is taken first, then its start time read, so a pid reused since cannot pass. The
 * pidfd in *@ret_pidfd. */
static bool holder_alive(const struct serve_session_record *rec, int *ret_pidfd)
{
        int pidfd = serve_pidfd_open(rec->holder_pid);
        if (pidfd < 0)
                return false;
        uint64_t start;
        if (holder_proc_start_time(rec->holder_pid, &start) < 0 || start != rec->holder_start ||
            serve_pidfd_exited(pidfd)) {
                safe_close(pidfd);
                return false;
        }
        *ret_pidfd = pidfd;
        return true;
}

static void adopt_one(const char *name, void *userdata)
{
        struct serve_holders *h = userdata;
        struct serve_session_record rec;
        char why[320];
        int r = serve_store_session_record(h->store, name, &rec, why, sizeof(why));
        if (r == -EPERM) {
                log_warning("the store's session %s: %s; left alone", name, why);
                return;
        }
        if (r < 0) {
                /* No record (a holder that died before writing it), or one that does not
                 * parse: nothing can be verified, so nothing is live there for us. */
                log_warning("the store's session %s: %s; what it holds is removed", name, why);
                serve_store_session_remove(h->store, name);
                return;
        }
        int pidfd = -EBADF;
        if (!holder_alive(&rec, &pidfd)) {
                log_info("session %s: its holder (pid %d) is gone; what it left is removed",
                         rec.session_id, (int)rec.holder_pid);
                serve_store_session_remove(h->store, name);
                serve_session_record_clear(&rec);
                return;
        }
        /* The store can be written by more than the holders (a sandbox given the whole home),
         * so what a record names is trusted only once the holder answers as its pid on the
         * socket the daemon gives each holder (NAME.sock in the runtime directory), never on
         * one the record names; and a process that does not is not signalled, nor are its
         * files removed: it may be anyone's (a planted record could name any process of the
         * user's, and a restart used to end it). */
        _cleanup_free_ char *sock = serve_store_session_socket(h->store, name);
        if (!sock) {
                log_error("session %s: out of memory; not re-adopted", rec.session_id);
                safe_close(pidfd);
                serve_session_record_clear(&rec);
                return;
        }
        int fd = streq(rec.socket, sock) ? serve_holder_connect(sock, rec.holder_pid) : -EXDEV;
        if (fd < 0) {
                log_warning("the store's session %s (%s): pid %d cannot be verified as its holder "
                            "(%s); not re-adopted, not signalled, and its files are left as they "
                            "are",
                            name, rec.session_id, (int)rec.holder_pid,
                            fd == -EXDEV ? "its record names another socket" : strerror(-fd));
                safe_close(pidfd);
                serve_session_record_clear(&rec);
                return;
        }
        if (serve_session_find(h, rec.session_id)) {
                log_warning("session %s: a second holder (pid %d, store name %s) claims it; "
                            "left alone",
                            rec.session_id, (int)rec.holder_pid, name);
                safe_close(fd);
                safe_close(pidfd);
                serve_session_record_clear(&rec);
                return;
        }
        struct serve_session *s = serve_session_new(h, name, rec.session_id);
        if (!s || !(s->backend = strdup(rec.backend))) {
                log_error("session %s: out of memory; not re-adopted", rec.session_id);
                if (s)
                        serve_session_free(s);
                safe_close(fd);
                safe_close(pidfd);
                serve_session_record_clear(&rec);
                return;
        }
        s->pid = rec.holder_pid;
        s->pidfd = pidfd;
        s->state = SESSION_STARTING; /* until attached */
        serve_holders_table_add(h, s);
        r = serve_session_watch(s);
        if (r >= 0)
                r = serve_session_attach(s, fd);
        else
                safe_close(fd);
        if (r < 0) {
                snprintf(why, sizeof(why),
                         "its holder (pid %d) answered on '%s' but cannot be watched (%s); it is "
                         "asked to end",
                         (int)rec.holder_pid, sock, strerror(-r));
                serve_session_lost(s, why);
        } else
                log_info("session %s: re-adopted (holder pid %d, backend %s)", s->id, (int)s->pid,
                         s->backend);
        serve_session_record_clear(&rec);
}

void serve_holders_adopt(struct serve_holders *h)
{
        int r = serve_store_sessions_foreach(h->store, adopt_one, h);
        if (r < 0)
                log_error_errno(r, "cannot read the store's sessions: %m");
}
