/* Unit tests for the chaperon's job registry (src/slurm/chaperon-jobs.c): jobs added and found
 * again by session and by project scope, sorted and unique; a partial last line and lines with
 * a bad id or too few fields skipped; a registry that is a symlink or no regular file, a state
 * directory open to the group, a session or project with a tab refused; the size limits. Each
 * test on a scratch state directory of its own. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/fd-util.h"
#include "shared/macro.h"
#include "slurm/chaperon.h"

static char base[64];
static char state[128];
static char registry[160];
static struct chaperon_config c;

static void scratch(void)
{
        snprintf(base, sizeof(base), "/tmp/cordon-chapjobs.XXXXXX");
        cr_assert(mkdtemp(base));
        snprintf(state, sizeof(state), "%s/state", base);
        snprintf(registry, sizeof(registry), "%s/jobs.tsv", state);
        cr_assert_eq(mkdir(state, 0700), 0);
        c = (struct chaperon_config){
            .scope = 0,
            .session = strdup("sess-a"),
            .project = strdup("/home/u/proj-a"),
            .state_dir = strdup(state),
        };
        cr_assert(c.session && c.project && c.state_dir);
}

static void scratch_remove(void)
{
        chaperon_config_clear(&c);
        remove_tree_physical(base);
}

TestSuite(chaperon_jobs, .init = scratch, .fini = scratch_remove);

static void set(char **field, const char *value)
{
        free(*field);
        *field = strdup(value);
        cr_assert_not_null(*field);
}

static void add_as(const char *session, const char *project, uint32_t id)
{
        set(&c.session, session);
        set(&c.project, project);
        int r = chaperon_jobs_add(&c, id);
        cr_assert_eq(r, 0, "add %u: %s", id, strerror(-r));
}

/* The ids in scope for @session and @project under @scope, as "1,2,3". */
static const char *in_scope(int scope, const char *session, const char *project)
{
        static char out[4096];
        set(&c.session, session);
        set(&c.project, project);
        c.scope = scope;
        uint32_t *ids = (uint32_t *)1;
        size_t n = 42;
        int r = chaperon_jobs_in_scope(&c, &ids, &n);
        cr_assert_eq(r, 0, "in_scope: %s", strerror(-r));
        cr_assert(n == 0 || ids, "ids for %zu", n);
        size_t w = 0;
        out[0] = 0;
        for (size_t i = 0; i < n; i++)
                w += (size_t)snprintf(out + w, sizeof(out) - w, "%s%u", i ? "," : "", ids[i]);
        free(ids);
        return out;
}

static void write_registry(const char *text)
{
        int fd = open(registry, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        cr_assert_geq(fd, 0, "%m");
        cr_assert_eq(write_all(fd, text, strlen(text)), 0);
        close(fd);
}

Test(chaperon_jobs, no_registry_is_no_job)
{
        cr_assert_str_eq(in_scope(0, "sess-a", "/p"), "");
        cr_assert_str_eq(in_scope(1, "sess-a", "/p"), "");
        struct stat st;
        cr_assert_eq(stat(registry, &st), -1, "reading creates nothing");
}

Test(chaperon_jobs, session_and_project_scopes)
{
        add_as("sess-a", "/home/u/proj-a", 30);
        add_as("sess-b", "/home/u/proj-a", 10);
        add_as("sess-a", "/home/u/proj-a", 20);
        add_as("sess-c", "/home/u/proj-b", 5);
        add_as("sess-a", "/home/u/proj-a", 30); /* recorded twice: listed once */
        add_as("sess-b", "/home/u/proj-a", 4000000000u);

        cr_assert_str_eq(in_scope(0, "sess-a", "/whatever"), "20,30");
        cr_assert_str_eq(in_scope(0, "sess-b", "/whatever"), "10,4000000000");
        cr_assert_str_eq(in_scope(0, "sess-c", "/whatever"), "5");
        cr_assert_str_eq(in_scope(0, "sess-d", "/home/u/proj-a"), "");
        cr_assert_str_eq(in_scope(1, "whatever", "/home/u/proj-a"), "10,20,30,4000000000");
        cr_assert_str_eq(in_scope(1, "sess-a", "/home/u/proj-b"), "5");
        /* Exact names: no prefix matches. */
        cr_assert_str_eq(in_scope(1, "x", "/home/u/proj"), "");
        cr_assert_str_eq(in_scope(0, "sess", "/x"), "");

        /* The registry's own format, and mode. */
        _cleanup_free_ char *text = NULL;
        cr_assert_eq(read_full_file(registry, 1 << 20, &text, NULL), 0);
        cr_assert_str_eq(text, "30\tsess-a\t/home/u/proj-a\n"
                               "10\tsess-b\t/home/u/proj-a\n"
                               "20\tsess-a\t/home/u/proj-a\n"
                               "5\tsess-c\t/home/u/proj-b\n"
                               "30\tsess-a\t/home/u/proj-a\n"
                               "4000000000\tsess-b\t/home/u/proj-a\n");
        struct stat st;
        cr_assert_eq(stat(registry, &st), 0);
        cr_assert_eq(st.st_mode & 07777, 0600);
}

Test(chaperon_jobs, state_directory_made_private)
{
        cr_assert_eq(rmdir(state), 0);
        add_as("sess-a", "/p", 7);
        struct stat st;
        cr_assert_eq(stat(state, &st), 0);
        cr_assert(S_ISDIR(st.st_mode));
        cr_assert_eq(st.st_mode & 07777, 0700);
        cr_assert_str_eq(in_scope(0, "sess-a", "/p"), "7");
}

Test(chaperon_jobs, partial_last_line_ignored)
{
        write_registry("1\tsess-a\t/p\n2\tsess-a\t/p");
        cr_assert_str_eq(in_scope(0, "sess-a", "/p"), "1", "a line being written is not read");
        /* Once it ends, it counts. */
        write_registry("1\tsess-a\t/p\n2\tsess-a\t/p\n");
        cr_assert_str_eq(in_scope(0, "sess-a", "/p"), "1,2");
}

Test(chaperon_jobs, bad_lines_ignored)
{
        write_registry("0\tsess-a\t/p\n"            /* no job 0 */
                       "-1\tsess-a\t/p\n"           /* negative */
                       "4294967296\tsess-a\t/p\n"   /* over 32 bits */
                       "12x\tsess-a\t/p\n"          /* trailing garbage */
                       "\tsess-a\t/p\n"             /* empty */
                       " 13\tsess-a\t/p\n"          /* strtoul skips the space: kept */
                       "14\tsess-a\n"               /* a field missing */
                       "15 sess-a /p\n"             /* not tabs */
                       "\n"                         /* empty line */
                       "16\tsess-a\t/p\textra\n"    /* a fourth field: the project differs */
                       "17\tsess-a\t/p\n"           /* good */
                       "4294967295\tsess-a\t/p\n"); /* the largest id */
        cr_assert_str_eq(in_scope(0, "sess-a", "/p"), "13,16,17,4294967295");
        cr_assert_str_eq(in_scope(1, "other", "/p"), "13,17,4294967295");
}

Test(chaperon_jobs, registry_symlink_refused)
{
        char target[192];
        snprintf(target, sizeof(target), "%s/elsewhere.tsv", base);
        int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        cr_assert_geq(fd, 0);
        cr_assert_eq(write_all(fd, "9\tsess-a\t/p\n", 12), 0);
        close(fd);
        cr_assert_eq(symlink(target, registry), 0);
        uint32_t *ids = NULL;
        size_t n = 0;
        cr_assert_eq(chaperon_jobs_in_scope(&c, &ids, &n), -ELOOP);
        cr_assert_null(ids);
        cr_assert_eq(n, 0);
        cr_assert_eq(chaperon_jobs_add(&c, 3), -ELOOP);
        _cleanup_free_ char *text = NULL;
        cr_assert_eq(read_full_file(target, 1 << 20, &text, NULL), 0);
        cr_assert_str_eq(text, "9\tsess-a\t/p\n", "nothing written through the link");
}

Test(chaperon_jobs, registry_not_a_regular_file_refused)
{
        cr_assert_eq(mkdir(registry, 0700), 0);
        uint32_t *ids = NULL;
        size_t n = 0;
        cr_assert_eq(chaperon_jobs_in_scope(&c, &ids, &n), -EPERM);
        cr_assert_null(ids);
        cr_assert_eq(chaperon_jobs_add(&c, 3), -EISDIR);
}

Test(chaperon_jobs, state_directory_open_to_others_refused)
{
        add_as("sess-a", "/p", 1);
        cr_assert_eq(chmod(state, 0770), 0);
        uint32_t *ids = NULL;
        size_t n = 0;
        cr_assert_eq(chaperon_jobs_in_scope(&c, &ids, &n), -EPERM);
        cr_assert_eq(chaperon_jobs_add(&c, 2), -EPERM);
        cr_assert_eq(chmod(state, 0705), 0);
        cr_assert_eq(chaperon_jobs_in_scope(&c, &ids, &n), -EPERM);
        /* Positive control: private again, read again. */
        cr_assert_eq(chmod(state, 0700), 0);
        cr_assert_str_eq(in_scope(0, "sess-a", "/p"), "1");
}

Test(chaperon_jobs, state_directory_checked_behind_a_symlink)
{
        /* The state directory is opened as a directory (dir_open_owned without NOFOLLOW): what
         * is checked is the directory a symlink leads to. */
        char real[192];
        snprintf(real, sizeof(real), "%s/real", base);
        cr_assert_eq(mkdir(real, 0755), 0);
        cr_assert_eq(chmod(real, 0755), 0);
        cr_assert_eq(rmdir(state), 0);
        cr_assert_eq(symlink(real, state), 0);
        cr_assert_eq(chaperon_jobs_add(&c, 1), -EPERM, "0755 behind the link is refused");
        cr_assert_eq(chmod(real, 0700), 0);
        add_as("sess-a", "/p", 1);
        cr_assert_str_eq(in_scope(0, "sess-a", "/p"), "1");
}

Test(chaperon_jobs, tab_or_newline_in_names_refused)
{
        set(&c.session, "sess\ta");
        cr_assert_eq(chaperon_jobs_add(&c, 1), -EINVAL);
        set(&c.session, "sess-a");
        set(&c.project, "/p\tq");
        cr_assert_eq(chaperon_jobs_add(&c, 1), -EINVAL);
        set(&c.project, "/p\n2\tsess-b\t/p");
        cr_assert_eq(chaperon_jobs_add(&c, 1), -EINVAL);
        set(&c.session, "sess-a\n2");
        set(&c.project, "/p");
        cr_assert_eq(chaperon_jobs_add(&c, 1), -EINVAL);
        struct stat st;
        cr_assert_eq(stat(registry, &st), -1, "nothing written");
        /* Positive control. */
        add_as("sess-a", "/p", 1);
        cr_assert_str_eq(in_scope(0, "sess-a", "/p"), "1");
}

Test(chaperon_jobs, registry_size_limit)
{
        const uint64_t max = 16u * 1024 * 1024;
        add_as("sess-a", "/p", 1);
        /* At the limit, one more line goes in; past it, none. */
        cr_assert_eq(truncate(registry, (off_t)max), 0);
        add_as("sess-a", "/p", 2);
        cr_assert_eq(truncate(registry, (off_t)max + 1), 0);
        cr_assert_eq(chaperon_jobs_add(&c, 3), -EFBIG);
        uint32_t *ids = NULL;
        size_t n = 0;
        cr_assert_eq(chaperon_jobs_in_scope(&c, &ids, &n), -EFBIG);
        cr_assert_null(ids);
}

Test(chaperon_jobs, id_count_limit)
{
        /* 100000 jobs in scope are read; one more is refused. */
        const size_t max = 100000;
        size_t cap = (max + 1) * 16;
        _cleanup_free_ char *text = malloc(cap);
        cr_assert_not_null(text);
        size_t w = 0;
        for (size_t i = 1; i <= max; i++)
                w += (size_t)snprintf(text + w, cap - w, "%zu\ts\t/p\n", i);
        write_registry(text);
        uint32_t *ids = NULL;
        size_t n = 0;
        set(&c.session, "s");
        cr_assert_eq(chaperon_jobs_in_scope(&c, &ids, &n), 0);
        cr_assert_eq(n, max);
        cr_assert_eq(ids[0], 1);
        cr_assert_eq(ids[max - 1], max);
        free(ids);
        ids = NULL;
        /* Lines out of scope do not count. */
        snprintf(text + w, cap - w, "%zu\tother\t/q\n", max + 1);
        write_registry(text);
        cr_assert_eq(chaperon_jobs_in_scope(&c, &ids, &n), 0);
        cr_assert_eq(n, max);
        free(ids);
        ids = NULL;
        snprintf(text + w, cap - w, "%zu\ts\t/p\n", max + 1);
        write_registry(text);
        cr_assert_eq(chaperon_jobs_in_scope(&c, &ids, &n), -E2BIG);
        cr_assert_null(ids);
        cr_assert_eq(n, 0);
}

Test(chaperon_jobs, rotation_keeps_the_newest_half)
{
        /* Past 8 MiB an add keeps the newest half of the lines, then appends. */
        const size_t rotate = 8u * 1024 * 1024;
        size_t cap = rotate + 64, w = 0;
        _cleanup_free_ char *text = malloc(cap);
        cr_assert_not_null(text);
        for (size_t i = 1; w < rotate; i++)
                w += (size_t)snprintf(text + w, cap - w, "%zu\tother\t/q\n", i);
        write_registry(text);
        add_as("sess-a", "/p", 4242);
        struct stat st;
        cr_assert_eq(stat(registry, &st), 0);
        cr_assert_lt((size_t)st.st_size, rotate / 2 + 64, "size %jd", (intmax_t)st.st_size);
        cr_assert_eq(st.st_mode & 07777, 0600);
        _cleanup_free_ char *now = NULL;
        size_t len = 0;
        cr_assert_eq(read_full_file(registry, 16u << 20, &now, &len), 0);
        cr_assert(strstr(now, "4242\tsess-a\t/p\n"), "the new line is kept");
        cr_assert_neq(strncmp(now, "1\tother\n", 8), 0, "the oldest line is gone");
        cr_assert_null(strstr(now, "\n2\tother\n"), "and the next");
        cr_assert(now[0] != '\t' && strchr("0123456789", now[0]), "starts at a whole line");
        cr_assert_str_eq(in_scope(1, "x", "/p"), "4242");
}
