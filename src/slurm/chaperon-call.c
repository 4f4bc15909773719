/* One call of a stub (chaperon.h): the request read and checked, judged (submissions by
 * lib/slurm/slurm-submit.h, the other commands by the scope, chaperon-scope.c), the real command
 * run with an environment of the chaperon's making, and its answer relayed. Every refusal is a
 * line on the stub's stderr naming the option and the rule, exit status 1, and a log line. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "lib/policy/diag.h"
#include "lib/slurm/slurm-names.h"
#include "lib/slurm/slurm-submit.h"
#include "shared/fd-util.h"
#include "shared/path-util.h"
#include "shared/strv.h"
#include "slurm/chaperon.h"
#include "slurm/chaperon-scope.h"

/* The chaperon's own variables that reach the real command: where Slurm and its configuration
 * are, who runs it, its token (auth/jwt). */
static const char *const env_own[] = {"PATH",       "HOME",      "USER", "LOGNAME",
                                      "SLURM_CONF", "SLURM_JWT", NULL};

struct call {
        const struct chaperon_config *c;
        int fd;
        char **argv;
        char *cwd;
        char **envp;
        const char *name;
};

static void call_clear(struct call *k)
{
        strv_free(k->argv);
        free(k->cwd);
        strv_free(k->envp);
}

/* A refusal: one line on the stub's stderr, "NAME (cordon): refused by the sandbox's policy:
 * MESSAGE [RULE]" (the judges' messages end with their rule already), exit status 1. */
static int refuse(struct call *k, const char *rule, const char *message)
{
        char tail[96];
        snprintf(tail, sizeof(tail), " [%s]", rule);
        size_t ml = strlen(message), tl = strlen(tail);
        bool has = ml >= tl && streq(message + ml - tl, tail);
        (void)chaperon_say(k->fd, "%s (cordon): refused by the sandbox's policy: %s%s", k->name,
                           message, has ? "" : tail);
        (void)cordon_chaperon_log_line(k->c->log, CORDON_CHAPERON_ERROR, "refused %s: %s%s",
                                       k->name, message, has ? "" : tail);
        (void)chaperon_send(k->fd, CORDON_CHAPERON_EXIT, "1", 1);
        return 1;
}

/* Receives pieces of one text: @more for each but the last, @last for the last, at most @max
 * bytes; a CORDON_CHAPERON_FILE_ERROR message is the stub's errno. 0, or -errno. */
static int recv_pieces(int fd, char more, char last, size_t max, char **ret, size_t *ret_len)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        static char buf[1 + CORDON_CHAPERON_CHUNK + 1];
        for (;;) {
                ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_TRUNC);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n < 0 ? -errno : -EPIPE;
                if ((size_t)n > sizeof(buf) - 1)
                        return -EBADMSG;
                size_t piece = (size_t)n - 1;
                if (buf[0] == CORDON_CHAPERON_FILE_ERROR && more == CORDON_CHAPERON_FILE_DATA) {
                        buf[n] = 0;
                        int e = atoi(buf + 1);
                        return e > 0 && e < 4096 ? -e : -EIO;
                }
                if (buf[0] != more && buf[0] != last)
                        return -EBADMSG;
                if (len + piece > max)
                        return -E2BIG;
                char *m = realloc(text, len + piece + 1);
                if (!m)
                        return -ENOMEM;
                text = m;
                memcpy(text + len, buf + 1, piece);
                len += piece;
                text[len] = 0;
                if (buf[0] == last)
                        break;
        }
        *ret = TAKE_PTR(text);
        *ret_len = len;
        return 0;
}

static int own_env(struct call *k)
{
        for (const char *const *n = env_own; *n; n++) {
                const char *v = getenv(*n);
                char *kv = NULL;
                if (v && (asprintf(&kv, "%s=%s", *n, v) < 0 || strv_consume(&k->envp, kv) < 0))
                        return -ENOMEM;
        }
        return 0;
}

/* Asks the stub for a file as the sandbox sees it; 0 with its bytes, or -errno. */
static int fetch_file(struct call *k, const char *path, char **ret, size_t *ret_len)
{
        int r = chaperon_send(k->fd, CORDON_CHAPERON_FILE_ASK, path, strlen(path));
        return r < 0 ? r
                     : recv_pieces(k->fd, CORDON_CHAPERON_FILE_DATA, CORDON_CHAPERON_FILE_END,
                                   CORDON_CHAPERON_FILE_MAX, ret, ret_len);
}

static void fill_policy(const struct chaperon_config *c, struct cordon_slurm_policy *p)
{
        *p = (struct cordon_slurm_policy){.project_dir = c->project,
                                          .read_roots = &c->read_roots,
                                          .write_roots = &c->write_roots,
                                          .blocked_env = &c->blocked_env,
                                          .blocked_env_pat = &c->blocked_env_pat,
                                          .job_env_filtered = true,
                                          .recheck_path = chaperon_recheck_path,
                                          .userdata = c};
}

static int judge_submit(struct call *k, enum cordon_slurm_command cmd, const char *script,
                        size_t script_size, struct cordon_slurm_submit **ret)
{
        struct cordon_diag diag = {0};
        const char *rule = NULL;
        int r = cordon_slurm_submit_parse(cmd, k->argv, script, script_size, ret, &rule, &diag);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return refuse(k, rule ?: "parse", diag.message), 1;
        struct cordon_slurm_policy p;
        fill_policy(k->c, &p);
        r = cordon_slurm_submit_check(*ret, &p, k->cwd, &rule, &diag);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return refuse(k, rule ?: "check", diag.message), 1;
        return 0;
}

/* Appends the wrapper that confines the job on the node: cordon run with the sandbox's
 * settings, then the job's command. */
static int add_wrapper(const struct chaperon_config *c, char ***argv)
{
        int r = strv_extend(argv, c->cordon);
        for (char **a = c->wrap_args; r >= 0 && a && *a; a++)
                r = strv_extend(argv, *a);
        return r;
}

static char *shell_quote(const char *s)
{
        size_t n = 2;
        for (const char *p = s; *p; p++)
                n += *p == '\'' ? 4 : 1;
        char *q = malloc(n + 1), *w = q;
        if (!q)
                return NULL;
        *w++ = '\'';
        for (const char *p = s; *p; p++) {
                if (*p == '\'') {
                        memcpy(w, "'\\''", 4);
                        w += 4;
                } else
                        *w++ = *p;
        }
        *w++ = '\'';
        *w = 0;
        return q;
}

/* The state directory's @sub/ (made 0700 where missing, refused unless ours), open. */
static int state_subdir(const struct chaperon_config *c, const char *sub)
{
        char err[256];
        _cleanup_close_ int base =
            dir_open_owned(AT_FDCWD, c->state_dir, DIR_OPEN_CREATE | DIR_OPEN_PRIVATE, c->state_dir,
                           err, sizeof(err));
        if (base < 0)
                return base;
        return dir_open_owned(base, sub, DIR_OPEN_CREATE | DIR_OPEN_PRIVATE | DIR_OPEN_NOFOLLOW,
                              sub, err, sizeof(err));
}

/* Writes @data as file @name (mode @mode) in the state directory's scripts/; its path in @ret. */
static int spool(const struct chaperon_config *c, const char *name, const char *data, size_t len,
                 mode_t mode, char **ret)
{
        _cleanup_close_ int dfd = state_subdir(c, "scripts");
        if (dfd < 0)
                return dfd;
        _cleanup_close_ int fd =
            openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0)
                return -errno;
        int r = write_all(fd, data, len);
        if (r < 0)
                return r;
        return asprintf(ret, "%s/scripts/%s", c->state_dir, name) < 0 ? -ENOMEM : 0;
}

/* The SPANK plugin confines the job when the site runs it and it can give the sandbox's network
 * whole: isolated only. It delivers open too, but a task confining itself keeps its node's unix
 * sockets (PMIx, the step daemon: cordon_confine_self() has no supervisor to sort them), munge's
 * among them, with which the job could submit a job of its own past the plugin; cordon run on
 * the node keeps them out (its ns backend's view, the landlock backend's OPEN_UNIX). */
static bool use_spank(const struct chaperon_config *c)
{
        return streq(c->net_mode, "isolated") && chaperon_spank_present();
}

static int add_spank_options(const struct chaperon_config *c, char ***argv)
{
        char *net = NULL;
        int r = strv_extend(argv, "--cordon");
        if (r < 0 || asprintf(&net, "--cordon-network=%s", c->net_mode) < 0)
                return r < 0 ? r : -ENOMEM;
        return strv_consume(argv, net);
}

/* CHAPERON_LOG_LEVEL=debug captures the batch script kept as @name: a line of the log per line
 * of it (escaped by the log), up to SCRIPT_LOG_MAX bytes, and a line saying how much was left
 * out. Nothing at the other levels. */
#define SCRIPT_LOG_MAX (64u << 10)
static void log_script(const struct call *k, const char *name, const char *s, size_t n)
{
        if (k->c->log_level != CORDON_CHAPERON_DEBUG || !k->c->log)
                return;
        size_t done = 0;
        for (unsigned line = 1; done < n && done < SCRIPT_LOG_MAX; line++) {
                const char *nl = memchr(s + done, '\n', n - done);
                size_t len = (nl ? (size_t)(nl - (s + done)) : n - done);
                if (len > SCRIPT_LOG_MAX - done)
                        len = SCRIPT_LOG_MAX - done;
                if (cordon_chaperon_log_line(k->c->log, CORDON_CHAPERON_DEBUG, "script %s:%u: %.*s",
                                             name, line, (int)len, s + done) < 0)
                        return;
                done += len + (nl && s + done + len == nl); /* the newline, when reached */
        }
        if (done < n)
                (void)cordon_chaperon_log_line(k->c->log, CORDON_CHAPERON_DEBUG,
                                               "script %s: %zu more bytes not logged", name,
                                               n - done);
}

/* A wrapper script @name that runs @job through cordon run with the sandbox's settings and the
 * job's arguments, its streams opened by @redirects inside (chaperon_stdio_redirects()); its
 * path in @ret. */
static int make_wrapper(const struct chaperon_config *c, const char *name, const char *job,
                        const char *redirects, char **ret)
{
        _cleanup_strv_free_ char **wargv = NULL;
        _cleanup_free_ char *inner = NULL;
        if (asprintf(&inner, "%s || exit 1; exec \"$0\" \"$@\"", redirects) < 0)
                return -ENOMEM;
        int r = add_wrapper(c, &wargv);
        if (r >= 0)
                r = strv_extend(&wargv, "--ro");
        if (r >= 0)
                r = strv_extend(&wargv, job);
        if (r >= 0)
                r = strv_extend(&wargv, "--");
        if (r >= 0)
                r = strv_extend(&wargv, "/bin/sh");
        if (r >= 0)
                r = strv_extend(&wargv, "-c");
        if (r >= 0)
                r = strv_extend(&wargv, inner);
        if (r >= 0)
                r = strv_extend(&wargv, job);
        if (r < 0)
                return r;
        _cleanup_free_ char *body = NULL, *text = NULL;
        STRV_FOREACH (a, wargv) {
                _cleanup_free_ char *q = shell_quote(*a);
                if (!q)
                        return -ENOMEM;
                char *m = NULL;
                if (asprintf(&m, "%s %s", body ? body : "exec", q) < 0)
                        return -ENOMEM;
                free(body);
                body = m;
        }
        if (asprintf(&text,
                     "#!/bin/sh\n# cordon: the job a sandbox submitted, confined on the node as "
                     "the sandbox was (SLURM_SCOPE)\n%s \"$@\"\n",
                     body) < 0)
                return -ENOMEM;
        return spool(c, name, text, strlen(text), 0600, ret);
}

/* The job's script is kept where the sandbox cannot change it, and a wrapper script submitted in
 * its place runs it through cordon run; the directives become sbatch's arguments (before the
 * command line's, in Slurm's order). */
static int run_sbatch(struct call *k)
{
        size_t op = 0;
        bool wrap = false;
        struct cordon_diag diag = {0};
        const char *rule = NULL;
        int r = cordon_slurm_submit_script_operand(k->argv, &op, &wrap, &rule, &diag);
        if (r < 0 && r != -ENOENT)
                return r == -ENOMEM ? r : refuse(k, rule ?: "parse", diag.message);
        _cleanup_free_ char *script = NULL;
        size_t script_size = 0;
        if (!wrap) {
                r = fetch_file(k, r == -ENOENT ? "-" : k->argv[op], &script, &script_size);
                if (r < 0) {
                        char m[512];
                        snprintf(m, sizeof(m), "cannot read the batch script %s: %s",
                                 op ? k->argv[op] : "from standard input", strerror(-r));
                        return refuse(k, "script-unreadable", m);
                }
        }
        _cleanup_(cordon_slurm_submit_freep) struct cordon_slurm_submit *s = NULL;
        r = judge_submit(k, CORDON_SLURM_SBATCH, script, script_size, &s);
        if (r != 0)
                return r < 0 ? r : 1;
        if (s->n_components > 1)
                return refuse(k, "hetjob",
                              "a heterogeneous batch job (hetjob) is not supported from a sandbox "
                              "yet");
        /* The streams: Slurm's own go to the state directory, the job opens the user's. */
        _cleanup_free_ char *redirects = NULL;
        char why[512];
        r = chaperon_stdio_redirects(s, &redirects, why, sizeof(why));
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return refuse(k, "output-pattern", why);
        char name[96];
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(name, sizeof(name), "%s-%ld%09ld-%d", k->c->session, (long)ts.tv_sec, ts.tv_nsec,
                 getpid());
        _cleanup_free_ char *job = NULL, *wrapper = NULL;
        char jname[128], wname[128];
        snprintf(jname, sizeof(jname), "%s.job", name);
        snprintf(wname, sizeof(wname), "%s.sh", name);
        log_script(k, jname, s->script, s->script_size);
        /* Confined on the node by the site's SPANK plugin where it runs one and can give the
         * sandbox's network mode, else by a wrapper script that runs the job through cordon run.
         * Under the plugin the streams' line goes right after the #! line of a shell script
         * (the whole batch step is confined; the directives are all on the command line below);
         * any other interpreter takes the wrapper. */
        bool spank = use_spank(k->c) && chaperon_stdio_shell_script(s->script, s->script_size);
        if (spank) {
                const char *nl = memchr(s->script, '\n', s->script_size);
                size_t first = nl ? (size_t)(nl - s->script) + 1 : s->script_size;
                _cleanup_free_ char *text = NULL;
                if (asprintf(&text, "%.*s%s%s || exit 1\n", (int)first, s->script, nl ? "" : "\n",
                             redirects) < 0)
                        return -ENOMEM;
                size_t tl = strlen(text);
                char *all = realloc(text, tl + (s->script_size - first) + 1);
                if (!all)
                        return -ENOMEM;
                text = all;
                memcpy(text + tl, s->script + first, s->script_size - first);
                tl += s->script_size - first;
                text[tl] = 0;
                r = spool(k->c, jname, text, tl, 0700, &job);
        } else
                r = spool(k->c, jname, s->script, s->script_size, 0700, &job);
        if (r < 0)
                return refuse(k, "spool", "cannot keep the batch script for the job");
        if (!spank && (r = make_wrapper(k->c, wname, job, redirects, &wrapper)) < 0)
                return refuse(k, "spool", "cannot write the wrapper script for the job");
        _cleanup_close_ int outdir = state_subdir(k->c, "out");
        if (outdir < 0)
                return refuse(k, "spool", "cannot make the directory of the job's own output");
        /* sbatch, the options, the wrapper, the script's arguments. */
        _cleanup_strv_free_ char **argv = NULL;
        r = strv_extend(&argv, "sbatch");
        /* Every option as the parser read it, in its order (so the command line's win), by its
         * long name: nothing reaches sbatch that the checker did not see as it sees it. */
        for (size_t i = 0; r >= 0 && i < s->n_uses; i++) {
                const struct cordon_slurm_use *u = &s->uses[i];
                if (u->option->rule == CORDON_SLURM_RULE_WRAP)
                        continue; /* its text is the script kept above */
                if (chaperon_stdio_option(u->option->name))
                        continue; /* the job opens them itself (redirects, above) */
                char *opt = NULL;
                if (u->value ? asprintf(&opt, "--%s=%s", u->option->name, u->value) < 0
                             : asprintf(&opt, "--%s", u->option->name) < 0)
                        return -ENOMEM;
                r = strv_consume(&argv, opt);
        }
        /* Slurm's own streams (what cordon says before the job's line runs): a file of the
         * state directory, which no sandbox can swap for a link. */
        char *own = NULL;
        if (r >= 0 && asprintf(&own, "--output=%s/out/%s.%%j.out", k->c->state_dir, name) < 0)
                return -ENOMEM;
        if (r >= 0)
                r = strv_consume(&argv, own);
        else
                free(own);
        if (r >= 0)
                r = strv_extend(&argv, "--input=/dev/null");
        if (r >= 0 && spank)
                r = add_spank_options(k->c, &argv);
        if (r >= 0)
                r = strv_extend(&argv, spank ? job : wrapper);
        for (size_t i = op + 1; r >= 0 && !wrap && k->argv[i]; i++)
                r = strv_extend(&argv, k->argv[i]);
        if (r < 0)
                return r;
        struct chaperon_run run = {.argv = argv, .envp = k->envp, .cwd = k->cwd, .capture = true};
        int st = chaperon_exec(k->fd, &run);
        _cleanup_free_ char *out = run.out;
        if (st < 0)
                return st;
        /* "Submitted batch job N" or, with --parsable, "N" or "N;cluster". */
        uint32_t id = 0;
        if (st == 0 && out) {
                const char *p = strstr(out, "Submitted batch job ");
                p = p ? p + strlen("Submitted batch job ") : out;
                char *e = NULL;
                unsigned long v = strtoul(p, &e, 10);
                if (e != p && v > 0 && v <= UINT32_MAX)
                        id = (uint32_t)v;
        }
        if (id && (r = chaperon_jobs_add(k->c, id)) < 0)
                (void)chaperon_say(k->fd,
                                   "sbatch (cordon): job %" PRIu32 " was submitted, but this "
                                   "sandbox could not record it (%s): its scope will not see it",
                                   id, strerror(-r));
        (void)cordon_chaperon_log_line(k->c->log, CORDON_CHAPERON_INFO,
                                       "sbatch: exit %d, job %" PRIu32, st, id);
        if (out)
                (void)chaperon_send(k->fd, CORDON_CHAPERON_OUT, out, run.out_len);
        char e[16];
        snprintf(e, sizeof(e), "%d", st);
        (void)chaperon_send(k->fd, CORDON_CHAPERON_EXIT, e, strlen(e));
        return 0;
}

/* srun: each component's command runs through the wrapper; salloc: only --no-shell passes the
 * checker, so no command of its own runs here. */
static int run_submit(struct call *k, enum cordon_slurm_command cmd)
{
        _cleanup_(cordon_slurm_submit_freep) struct cordon_slurm_submit *s = NULL;
        int r = judge_submit(k, cmd, NULL, 0, &s);
        if (r != 0)
                return r < 0 ? r : 1;
        _cleanup_strv_free_ char **argv = NULL;
        size_t n = strv_length(k->argv);
        /* One component: the SPANK plugin where it can; else each component's command runs
         * through the wrapper. */
        bool spank = cmd == CORDON_SLURM_SRUN && s->n_components == 1 && use_spank(k->c);
        for (size_t i = 0; i < n; i++) {
                for (size_t j = 0; cmd == CORDON_SLURM_SRUN && !spank && j < s->n_operands; j++)
                        if (s->operands[j] == i && (r = add_wrapper(k->c, &argv)) >= 0)
                                r = strv_extend(&argv, "--");
                if (r < 0 || (r = strv_extend(&argv, k->argv[i])) < 0)
                        return r;
                if (i == 0 && spank && (r = add_spank_options(k->c, &argv)) < 0)
                        return r;
        }
        struct chaperon_run run = {.argv = argv, .envp = k->envp, .cwd = k->cwd};
        int st = chaperon_exec(k->fd, &run);
        if (st < 0)
                return st;
        (void)cordon_chaperon_log_line(k->c->log, st ? CORDON_CHAPERON_WARN : CORDON_CHAPERON_INFO,
                                       "%s: exit %d", k->name, st);
        char e[16];
        snprintf(e, sizeof(e), "%d", st);
        return chaperon_send(k->fd, CORDON_CHAPERON_EXIT, e, strlen(e));
}

static int run_query(struct call *k)
{
        _cleanup_free_ uint32_t *ids = NULL;
        size_t n_ids = 0;
        int r;
        if (k->c->scope <= 1 && (r = chaperon_jobs_in_scope(k->c, &ids, &n_ids)) < 0)
                return refuse(k, "registry", "the record of this sandbox's jobs cannot be read");
        struct chaperon_scope_result res = {0};
        struct cordon_diag diag = {0};
        r = chaperon_scope_judge(k->c, k->argv, ids, n_ids, &res, &diag);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return refuse(k, res.rule ?: "scope", diag.message);
        if (res.empty && res.header_lines == 0) {
                /* Nothing in scope and nothing to print: the command need not run. */
                (void)cordon_chaperon_log_line(k->c->log, CORDON_CHAPERON_INFO,
                                               "%s: no job in scope", k->name);
                chaperon_scope_result_clear(&res);
                return chaperon_send(k->fd, CORDON_CHAPERON_EXIT, "0", 1);
        }
        struct chaperon_run run = {.argv = res.argv,
                                   .envp = k->envp,
                                   .cwd = k->cwd,
                                   .capture = res.filter != NULL || res.empty};
        int st = chaperon_exec(k->fd, &run);
        _cleanup_free_ char *out = run.out;
        if (st >= 0 && res.empty && out)
                (void)chaperon_send(k->fd, CORDON_CHAPERON_OUT, out,
                                    chaperon_scope_head(out, run.out_len, res.header_lines));
        else if (st >= 0 && res.filter && out) {
                _cleanup_free_ char *kept = NULL;
                size_t kept_len = 0;
                r = res.filter(out, run.out_len, ids, n_ids, &kept, &kept_len);
                if (r < 0)
                        st = 1;
                else
                        (void)chaperon_send(k->fd, CORDON_CHAPERON_OUT, kept, kept_len);
        }
        chaperon_scope_result_clear(&res);
        if (st < 0)
                return st;
        (void)cordon_chaperon_log_line(k->c->log, st ? CORDON_CHAPERON_WARN : CORDON_CHAPERON_INFO,
                                       "%s: exit %d", k->name, st);
        char e[16];
        snprintf(e, sizeof(e), "%d", st);
        return chaperon_send(k->fd, CORDON_CHAPERON_EXIT, e, strlen(e));
}

int chaperon_call(const struct chaperon_config *c, int fd)
{
        struct call k = {.c = c, .fd = fd, .name = "slurm"};
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = recv_pieces(fd, CORDON_CHAPERON_REQ_MORE, CORDON_CHAPERON_REQ_END,
                            CORDON_CHAPERON_REQUEST_MAX, &text, &len);
        struct chaperon_request req0 = {0};
        if (r >= 0 && (r = chaperon_request_parse(text, len, &req0)) >= 0) {
                k.argv = TAKE_PTR(req0.argv);
                k.cwd = TAKE_PTR(req0.cwd);
                k.envp = TAKE_PTR(req0.envp);
        }
        if (r < 0) {
                (void)cordon_chaperon_log_line(c->log, CORDON_CHAPERON_ERROR,
                                               "a malformed call: %s", strerror(-r));
                call_clear(&k);
                return 1;
        }
        k.name = chaperon_request_command(k.argv[0]);
        struct cordon_chaperon_request req = {.command = k.name,
                                              .argv = (const char *const *)k.argv,
                                              .cwd = k.cwd,
                                              .env = (const char *const *)k.envp};
        (void)cordon_chaperon_log_request(c->log, CORDON_CHAPERON_INFO, &req);
        r = own_env(&k);
        if (r >= 0) {
                if (streq(k.name, "sacctmgr"))
                        r = refuse(&k, "sacctmgr",
                                   "sacctmgr is not available in a sandbox: it lists and changes "
                                   "accounts and users beyond this user's jobs");
                else if (streq(k.name, "sbatch"))
                        r = run_sbatch(&k);
                else if (streq(k.name, "srun"))
                        r = run_submit(&k, CORDON_SLURM_SRUN);
                else if (streq(k.name, "salloc"))
                        r = run_submit(&k, CORDON_SLURM_SALLOC);
                else
                        r = run_query(&k);
        }
        if (r < 0) {
                (void)chaperon_say(fd, "%s (cordon): the chaperon failed: %s", k.name,
                                   strerror(-r));
                (void)chaperon_send(fd, CORDON_CHAPERON_EXIT, "1", 1);
                (void)cordon_chaperon_log_line(c->log, CORDON_CHAPERON_ERROR, "%s failed: %s",
                                               k.name, strerror(-r));
        }
        call_clear(&k);
        return r < 0 ? 1 : 0;
}
