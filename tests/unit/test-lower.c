/* Unit tests for src/lib/lower.c: cordon_settings_lower() on a scratch directory standing in for
 * $HOME and the project. Lowering only reads the host and creates placeholders; nothing here
 * unshares or mounts. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/lower.h"
#include "lib/policy.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"
#include "test-helpers.h"

static char *root;    /* realpath of the scratch directory */
static char *home;    /* root/home */
static char *project; /* root/home/proj */
static char **garbage;
static char **envp;
static struct cordon_settings s;
static struct cordon_host h;
static struct cordon_policy *p;
static char **warnings;
static struct cordon_diag diag;

/* A formatted string freed at teardown. */
_printf_(1, 2) static const char *fmt(const char *f, ...)
{
        char *m = NULL;
        va_list ap;
        va_start(ap, f);
        int k = vasprintf(&m, f, ap);
        va_end(ap);
        cr_assert_geq(k, 0);
        cr_assert_eq(strv_consume(&garbage, m), 0);
        return m;
}

static const char *in_root(const char *rel)
{
        return fmt("%s/%s", root, rel);
}

static void mkdir_p(const char *path)
{
        _cleanup_free_ char *buf = strdup(path);
        cr_assert_not_null(buf);
        for (char *c = buf + 1; *c; c++) {
                if (*c != '/')
                        continue;
                *c = 0;
                cr_assert(mkdir(buf, 0700) == 0 || errno == EEXIST, "mkdir %s: %m", buf);
                *c = '/';
        }
        cr_assert(mkdir(buf, 0700) == 0 || errno == EEXIST, "mkdir %s: %m", buf);
}

static void write_file(const char *path, const char *contents)
{
        _cleanup_free_ char *dir = strdup(path);
        cr_assert_not_null(dir);
        *strrchr(dir, '/') = 0;
        mkdir_p(dir);
        FILE *f = fopen(path, "we");
        cr_assert_not_null(f, "fopen %s: %m", path);
        fputs(contents, f);
        cr_assert_eq(fclose(f), 0);
}

static bool exists(const char *path)
{
        struct stat st;
        return lstat(path, &st) == 0;
}

static int rm_cb(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
        (void)sb;
        (void)ftw;
        return type == FTW_DP ? rmdir(path) : unlink(path);
}

static void setup(void)
{
        char tmpl[] = "/tmp/cordon-test-lower-XXXXXX";
        cr_assert_not_null(mkdtemp(tmpl), "mkdtemp: %m");
        root = realpath(tmpl, NULL);
        cr_assert_not_null(root);
        home = strdup(in_root("home"));
        project = strdup(in_root("home/proj"));
        cr_assert(home && project);
        mkdir_p(project);

        write_file(in_root("passwd"), "root:x:0:0:root:/root:/bin/bash\n"
                                      "daemon:x:1:1::/:/usr/sbin/nologin\n"
                                      "someoneelse:x:4242:4242::/home/x:/bin/sh\n"
                                      "nobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n");
        write_file(in_root("group"), "root:x:0:\nwheel:x:10:someoneelse\nsomeoneelse:x:4242:\n");

        envp = STRV_MAKE("PATH=/usr/bin:/bin", "HOME=/ignored", "GH_TOKEN=ghp_secret",
                         "GITHUB_PAT=pat", "SSH_AUTH_SOCK=/run/ssh.sock",
                         "ANTHROPIC_API_KEY=sk-allowed", "TERM=xterm", "NOEQUALS");
        h = (struct cordon_host){
            .home = home,
            .cwd = project,
            .envp = envp,
            .uid = getuid(),
            .gid = getgid(),
            .passwd_path = in_root("passwd"),
            .group_path = in_root("group"),
        };
        cr_assert_eq(cordon_settings_init_defaults(&s, home), 0);
        diag = (struct cordon_diag){0};
}

static char *mfree(char *m)
{
        free(m);
        return NULL;
}

static void teardown(void)
{
        p = cordon_policy_free(p);
        warnings = strv_free(warnings);
        cordon_settings_clear(&s);
        if (root)
                nftw(root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
        root = mfree(root);
        home = mfree(home);
        project = mfree(project);
        envp = strv_free(envp);
        garbage = strv_free(garbage);
}

TestSuite(lower, .init = setup, .fini = teardown);

static int lower(void)
{
        p = cordon_policy_free(p);
        warnings = strv_free(warnings);
        diag = (struct cordon_diag){0};
        return cordon_settings_lower(&s, &h, &p, &warnings, &diag);
}

static void lower_ok(void)
{
        int r = lower();
        cr_assert_eq(r, 0, "cordon_settings_lower: %d (%s)", r, diag.message);
        cr_assert_not_null(p);
        cr_assert_eq(cordon_policy_validate(p, NULL), 0, "the lowered policy validates");
}

/* The last rule for @guest with @access, or NULL. */
static const struct cordon_fs_rule *rule(const char *guest, enum cordon_access access)
{
        const struct cordon_fs_rule *found = NULL;
        for (size_t i = 0; p && i < p->n_fs; i++)
                if (streq(p->fs[i].guest, guest) && p->fs[i].access == access)
                        found = &p->fs[i];
        return found;
}

static void dump(void)
{
        for (size_t i = 0; p && i < p->n_fs; i++)
                cr_log_info("%-8s %s <- %s (%s)", cordon_access_to_string(p->fs[i].access),
                            p->fs[i].guest,
                            p->fs[i].access == CORDON_ACCESS_DATA ? "…" : strempty(p->fs[i].host),
                            p->fs[i].origin);
}

static void assert_masked(const char *guest)
{
        if (!rule(guest, CORDON_ACCESS_MASKED))
                dump();
        cr_assert_not_null(rule(guest, CORDON_ACCESS_MASKED), "no mask at '%s'", guest);
}

static bool warned(const char *needle)
{
        STRV_FOREACH (w, warnings) {
                if (strstr(*w, needle))
                        return true;
        }
        return false;
}

static const char *env_get(const char *name)
{
        size_t l = strlen(name);
        STRV_FOREACH (e, p->envp) {
                if (strncmp(*e, name, l) == 0 && (*e)[l] == '=')
                        return *e + l + 1;
        }
        return NULL;
}

/* ---- the basic shape ---- */

Test(lower, defaults_give_a_valid_policy)
{
        lower_ok();
        cr_assert_str_eq(p->project_dir, project);
        cr_assert_str_eq(p->cwd, project);
        cr_assert_str_eq(p->home_dir, home);
        cr_assert_eq(p->identity.uid, h.uid);
        cr_assert_eq(p->identity.gid, h.gid);
        cr_assert_str_eq(p->identity.hostname, "cordon");
        cr_assert_eq(p->net_mode, CORDON_NET_ISOLATED);

        const struct cordon_fs_rule *proj = rule(project, CORDON_ACCESS_RW);
        cr_assert_not_null(proj, "the project is writable");
        cr_assert_str_eq(proj->host, project);
        cr_assert_str_eq(proj->origin, "working directory");

        cr_assert_not_null(rule("/tmp", CORDON_ACCESS_TMPFS), "PRIVATE_TMP");
        cr_assert_not_null(rule("/dev", CORDON_ACCESS_DEV));
        cr_assert_not_null(rule("/proc", CORDON_ACCESS_PROC));
        const struct cordon_fs_rule *sys = rule("/proc/sys", CORDON_ACCESS_RO);
        cr_assert_not_null(sys);
        cr_assert_null(sys->host, "/proc/sys is made read-only in place");
        cr_assert_null(rule("/dev/shm", CORDON_ACCESS_RW), "PRIVATE_IPC");
        cr_assert_not_null(rule("/usr", CORDON_ACCESS_RO));
        cr_assert_not_null(rule("/etc", CORDON_ACCESS_RO));
        for (size_t i = 0; i < p->n_fs; i++)
                cr_assert(!p->fs[i].host || !streq(p->fs[i].host, "/") ||
                              p->fs[i].access == CORDON_ACCESS_SYMLINK,
                          "the host root is bound at '%s'", p->fs[i].guest);
}

Test(lower, warnings_may_be_null)
{
        cr_assert_eq(cordon_settings_lower(&s, &h, &p, NULL, NULL), 0);
}

Test(lower, no_private_tmp_or_ipc)
{
        s.private_tmp = false;
        s.private_ipc = false;
        lower_ok();
        const struct cordon_fs_rule *t = rule("/tmp", CORDON_ACCESS_RW);
        cr_assert_not_null(t);
        cr_assert_str_eq(t->host, "/tmp");
        cr_assert_null(rule("/tmp", CORDON_ACCESS_TMPFS));
        cr_assert_not_null(rule("/dev/shm", CORDON_ACCESS_RW));
}

Test(lower, network_modes_other_than_isolated_refused)
{
        s.net_mode = CORDON_NET_OPEN;
        cr_assert_eq(lower(), -EOPNOTSUPP);
        cr_assert(strstr(diag.message, "open"), "%s", diag.message);
        cr_assert_null(p);
}

/* ---- the project directory ---- */

Test(lower, project_root_refused)
{
        s.project_dir = strdup("/");
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, "'/'"), "%s", diag.message);
        cr_assert_null(p);
}

Test(lower, project_root_via_cwd_refused)
{
        h.cwd = "/";
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, "'/'"), "%s", diag.message);
}

Test(lower, project_home_refused)
{
        s.project_dir = strdup(home);
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, home), "%s", diag.message);
        cr_assert(strstr(diag.message, "home"), "%s", diag.message);
}

Test(lower, project_home_via_symlink_refused)
{
        cr_assert_eq(symlink(home, in_root("homelink")), 0);
        s.project_dir = strdup(in_root("homelink"));
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, home), "%s", diag.message);
}

Test(lower, project_home_with_trailing_dots_refused)
{
        s.project_dir = strdup(fmt("%s/proj/..", home));
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, home), "%s", diag.message);
}

Test(lower, project_outside_allowed_parents_refused)
{
        mkdir_p(in_root("allowed/ok"));
        mkdir_p(in_root("elsewhere"));
        cordon_list_clear(&s.allowed_project_parents);
        cr_assert_eq(cordon_list_add(&s.allowed_project_parents, in_root("allowed"), "test"), 0);

        s.project_dir = strdup(in_root("elsewhere"));
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, in_root("elsewhere")), "%s", diag.message);
        cr_assert(strstr(diag.message, in_root("allowed")), "lists the parents: %s", diag.message);

        /* A sibling sharing the prefix is not below the parent. */
        mkdir_p(in_root("allowed-not"));
        free(s.project_dir);
        s.project_dir = strdup(in_root("allowed-not"));
        cr_assert_eq(lower(), -EPERM, "%s", diag.message);

        free(s.project_dir);
        s.project_dir = strdup(in_root("allowed/ok"));
        lower_ok();
        cr_assert_str_eq(p->project_dir, in_root("allowed/ok"));
}

Test(lower, project_no_allowed_parents_refused)
{
        cordon_list_clear(&s.allowed_project_parents);
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, project), "%s", diag.message);
}

Test(lower, project_relative_to_cwd)
{
        mkdir_p(fmt("%s/sub", project));
        s.project_dir = strdup("sub");
        lower_ok();
        cr_assert_str_eq(p->project_dir, fmt("%s/sub", project));
        cr_assert_str_eq(p->cwd, fmt("%s/sub", project));
}

Test(lower, project_missing_or_not_a_directory)
{
        s.project_dir = strdup(in_root("home/missing"));
        cr_assert_eq(lower(), -ENOENT);
        cr_assert(strstr(diag.message, "missing"), "%s", diag.message);

        write_file(in_root("home/file"), "x");
        free(s.project_dir);
        s.project_dir = strdup(in_root("home/file"));
        cr_assert_eq(lower(), -ENOTDIR);
}

Test(lower, project_inside_blocked_home_path_refused)
{
        mkdir_p(fmt("%s/.ssh/proj", home));
        s.project_dir = strdup(fmt("%s/.ssh/proj", home));
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, ".ssh"), "%s", diag.message);
        cr_assert_null(p);
}

Test(lower, project_symlink_into_blocked_path_refused)
{
        mkdir_p(fmt("%s/.ssh/work", home));
        cr_assert_eq(symlink(".ssh/work", fmt("%s/work", home)), 0);
        s.project_dir = strdup(fmt("%s/work", home));
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, ".ssh"), "%s", diag.message);
}

Test(lower, project_equal_to_blocked_path_refused)
{
        mkdir_p(fmt("%s/.aws", home));
        s.project_dir = strdup(fmt("%s/.aws", home));
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, ".aws"), "%s", diag.message);
}

Test(lower, project_inside_hidden_path_refused)
{
        mkdir_p(fmt("%s/secret/proj", home));
        cr_assert_eq(cordon_list_add(&s.extra_blocked_paths, fmt("%s/secret", home), "--hide"), 0);
        s.project_dir = strdup(fmt("%s/secret/proj", home));
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, "secret"), "%s", diag.message);
        cr_assert(strstr(diag.message, "--hide"), "names the origin: %s", diag.message);
}

/* ---- HOME_ACCESS ---- */

static void make_home_files(void)
{
        write_file(fmt("%s/.bashrc", home), "# rc\n");
        write_file(fmt("%s/.gitconfig", home), "[user]\n");
        write_file(fmt("%s/notes.txt", home), "private\n");
}

Test(lower, home_tmpwrite)
{
        make_home_files();
        lower_ok();
        cr_assert_eq(p->home_access, CORDON_HOME_TMPWRITE);
        const struct cordon_fs_rule *r = rule(home, CORDON_ACCESS_TMPFS);
        cr_assert_not_null(r);
        cr_assert_eq(r->flags & CORDON_FS_SEAL, 0);
        cr_assert_null(rule(home, CORDON_ACCESS_RO));
        cr_assert_null(rule(home, CORDON_ACCESS_RW));

        const struct cordon_fs_rule *rc = rule(fmt("%s/.bashrc", home), CORDON_ACCESS_RO);
        cr_assert_not_null(rc, "HOME_READONLY");
        cr_assert_str_eq(rc->host, fmt("%s/.bashrc", home));
        const struct cordon_fs_rule *claude = rule(fmt("%s/.claude", home), CORDON_ACCESS_RW);
        cr_assert_not_null(claude, "HOME_WRITABLE");
        cr_assert(exists(fmt("%s/.claude", home)), "HOME_WRITABLE directories are created");
        cr_assert_not_null(rule(fmt("%s/.cache/uv", home), CORDON_ACCESS_RW));
        cr_assert(exists(fmt("%s/.cache/uv", home)));
        const struct cordon_fs_rule *git = rule(fmt("%s/.gitconfig", home), CORDON_ACCESS_COPY);
        cr_assert_not_null(git, "HOME_SEEDED_FILES");
        cr_assert_null(rule(fmt("%s/.gitconfig", home), CORDON_ACCESS_RO));
        cr_assert_null(rule(fmt("%s/notes.txt", home), CORDON_ACCESS_RO));
        cr_assert_null(rule(fmt("%s/.profile", home), CORDON_ACCESS_RO),
                       "missing HOME_READONLY entries are skipped");
}

Test(lower, home_restricted_is_sealed)
{
        s.home_access = CORDON_HOME_RESTRICTED;
        make_home_files();
        lower_ok();
        const struct cordon_fs_rule *r = rule(home, CORDON_ACCESS_TMPFS);
        cr_assert_not_null(r);
        cr_assert_neq(r->flags & CORDON_FS_SEAL, 0);
        cr_assert_not_null(rule(fmt("%s/.bashrc", home), CORDON_ACCESS_RO));
        cr_assert_not_null(rule(fmt("%s/.claude", home), CORDON_ACCESS_RW));
}

Test(lower, home_read)
{
        s.home_access = CORDON_HOME_READ;
        make_home_files();
        lower_ok();
        const struct cordon_fs_rule *r = rule(home, CORDON_ACCESS_RO);
        cr_assert_not_null(r);
        cr_assert_str_eq(r->host, home);
        cr_assert_null(rule(home, CORDON_ACCESS_TMPFS));
        cr_assert_not_null(rule(fmt("%s/.claude", home), CORDON_ACCESS_RW),
                           "HOME_WRITABLE stays writable");
        cr_assert_not_null(rule(fmt("%s/.gitconfig", home), CORDON_ACCESS_COPY));
        cr_assert_null(rule(fmt("%s/.bashrc", home), CORDON_ACCESS_RO),
                       "no separate bind below a read-only home");
}

Test(lower, home_write)
{
        s.home_access = CORDON_HOME_WRITE;
        make_home_files();
        lower_ok();
        const struct cordon_fs_rule *r = rule(home, CORDON_ACCESS_RW);
        cr_assert_not_null(r);
        cr_assert_str_eq(r->host, home);
        cr_assert_null(rule(home, CORDON_ACCESS_TMPFS));
        cr_assert_null(rule(home, CORDON_ACCESS_RO));
}

Test(lower, home_access_origin_is_kept)
{
        s.home_access = CORDON_HOME_READ;
        free(s.home_access_origin);
        s.home_access_origin = strdup("--home-access");
        lower_ok();
        cr_assert_str_eq(rule(home, CORDON_ACCESS_RO)->origin, "--home-access");
}

Test(lower, home_via_symlink)
{
        /* $HOME is a symlink: the sandbox sees it at $HOME, the binds come from its target. */
        cr_assert_eq(symlink(home, in_root("homelink")), 0);
        h.home = in_root("homelink");
        s.home_access = CORDON_HOME_READ;
        lower_ok();
        const struct cordon_fs_rule *r = rule(in_root("homelink"), CORDON_ACCESS_RO);
        cr_assert_not_null(r);
        cr_assert_str_eq(r->host, home);
        cr_assert_str_eq(p->home_dir, in_root("homelink"));
}

Test(lower, home_missing_or_unset_warns)
{
        h.home = in_root("nohome");
        cordon_list_clear(&s.allowed_project_parents);
        cr_assert_eq(cordon_list_add(&s.allowed_project_parents, root, "test"), 0);
        lower_ok();
        cr_assert(warned("nohome"), "a warning names the missing home");
        cr_assert_null(p->home_dir);

        h.home = NULL;
        lower_ok();
        cr_assert(warned("HOME"));
        cr_assert_null(p->home_dir);
}

Test(lower, home_entry_climbing_out_refused)
{
        cr_assert_eq(cordon_list_add(&s.home_writable, "../escape", "sandbox.conf:7"), 0);
        cr_assert_eq(lower(), -EINVAL);
        cr_assert(strstr(diag.message, "../escape"), "%s", diag.message);
        cr_assert(strstr(diag.message, "sandbox.conf:7"), "%s", diag.message);
        cr_assert_not(exists(in_root("escape")), "nothing was created outside $HOME");

        cordon_settings_clear(&s);
        cr_assert_eq(cordon_settings_init_defaults(&s, home), 0);
        cr_assert_eq(cordon_list_add(&s.home_readonly, "/etc/shadow", "test"), 0);
        cr_assert_eq(lower(), -EINVAL);

        cordon_settings_clear(&s);
        cr_assert_eq(cordon_settings_init_defaults(&s, home), 0);
        cr_assert_eq(cordon_list_add(&s.home_always_blocked, "a/../../b", "test"), 0);
        cr_assert_eq(lower(), -EINVAL);
}

Test(lower, created_home_writable_dirs_are_silent_and_bound)
{
        /* lower.h: missing HOME_WRITABLE directories are created silently (agents expect them
         * on first use, as the configuration reference says) and bound read-write. */
        cr_assert_not(exists(fmt("%s/.claude", home)));
        lower_ok();
        cr_assert(exists(fmt("%s/.claude", home)));
        cr_assert_not(warned(fmt("%s/.claude", home)), "a warning names '%s/.claude'", home);
        const struct cordon_fs_rule *r = cordon_policy_find_fs(p, fmt("%s/.claude", home));
        cr_assert_not_null(r);
        cr_assert_eq(r->access, CORDON_ACCESS_RW);
}

Test(lower, home_entry_symlink_to_host_root_not_bound)
{
        /* A HOME_WRITABLE entry is resolved on the host; a symlink to "/" must not make the
         * whole host writable inside (READONLY_MOUNTS refuses the host root the same way). */
        cr_assert_eq(symlink("/", fmt("%s/.claude", home)), 0);
        int r = lower();
        if (r == 0) {
                for (size_t i = 0; i < p->n_fs; i++)
                        cr_assert(!p->fs[i].host || !streq(p->fs[i].host, "/") ||
                                      !cordon_access_is_bind(p->fs[i].access),
                                  "the host root is bound %s at '%s'",
                                  cordon_access_to_string(p->fs[i].access), p->fs[i].guest);
        } else
                cr_assert(strstr(diag.message, ".claude"), "%s", diag.message);
}

/* ---- credentials and masks ---- */

Test(lower, credentials_masked_in_every_mode)
{
        mkdir_p(fmt("%s/.ssh", home));
        write_file(fmt("%s/.ssh/id_ed25519", home), "KEY");
        mkdir_p(fmt("%s/.aws", home));
        const enum cordon_home_access modes[] = {CORDON_HOME_TMPWRITE, CORDON_HOME_RESTRICTED,
                                                 CORDON_HOME_READ, CORDON_HOME_WRITE};
        for (size_t i = 0; i < ELEMENTSOF(modes); i++) {
                s.home_access = modes[i];
                lower_ok();
                assert_masked(fmt("%s/.ssh", home));
                assert_masked(fmt("%s/.aws", home));
                assert_masked(fmt("%s/.gnupg", home));
        }
}

Test(lower, missing_credentials_created_when_home_writable)
{
        s.home_access = CORDON_HOME_WRITE;
        cr_assert_not(exists(fmt("%s/.ssh", home)));
        lower_ok();
        struct stat st;
        cr_assert_eq(stat(fmt("%s/.ssh", home), &st), 0,
                     "an empty ~/.ssh is made so the sandbox cannot create one");
        cr_assert(S_ISDIR(st.st_mode));
        cr_assert(warned(".ssh"));
        assert_masked(fmt("%s/.ssh", home));
}

Test(lower, missing_credentials_not_created_when_home_private)
{
        lower_ok();
        cr_assert_not(exists(fmt("%s/.ssh", home)), "nothing to protect: not created");
        assert_masked(fmt("%s/.ssh", home));
}

Test(lower, missing_credentials_created_when_home_bound_rw_by_flag)
{
        /* --rw $HOME in the default mode: the sandbox can write to the host's home, so a missing
         * ~/.ssh must exist (empty, masked) before it starts, or the sandbox could create
         * ~/.ssh/authorized_keys on the host. */
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, home, "--rw"), 0);
        lower_ok();
        cr_assert(exists(fmt("%s/.ssh", home)),
                  "~/.ssh was not created although $HOME is writable through --rw");
        assert_masked(fmt("%s/.ssh", home));
}

Test(lower, missing_credentials_created_when_project_contains_home)
{
        /* A project that is a parent of $HOME makes the home writable the same way. */
        s.project_dir = strdup(root);
        lower_ok();
        cr_assert_not_null(rule(root, CORDON_ACCESS_RW));
        cr_assert(exists(fmt("%s/.ssh", home)),
                  "~/.ssh was not created although $HOME is writable through the project");
        assert_masked(fmt("%s/.ssh", home));
}

Test(lower, masks_follow_rw_bind_of_home)
{
        /* $HOME is reached through a symlink, and --rw binds its target: ~/.ssh is then visible
         * at two guest paths and must be masked at both. */
        mkdir_p(fmt("%s/.ssh", home));
        write_file(fmt("%s/.ssh/id_rsa", home), "KEY");
        cr_assert_eq(symlink(home, in_root("homelink")), 0);
        h.home = in_root("homelink");
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, home, "--rw"), 0);
        lower_ok();
        cr_assert_not_null(rule(home, CORDON_ACCESS_RW));
        assert_masked(in_root("homelink/.ssh"));
        assert_masked(fmt("%s/.ssh", home));
}

Test(lower, masks_follow_rw_bind_of_parent)
{
        /* /tmp bound read-write shows the scratch directory, and the real ~/.ssh below it; $HOME
         * is reached through a symlink so the home mask alone would not cover that path. */
        mkdir_p(fmt("%s/.ssh", home));
        cr_assert_eq(symlink(home, in_root("homelink")), 0);
        h.home = in_root("homelink");
        s.private_tmp = false;
        lower_ok();
        cr_assert_not_null(rule("/tmp", CORDON_ACCESS_RW));
        assert_masked(in_root("homelink/.ssh"));
        assert_masked(fmt("%s/.ssh", home));
}

Test(lower, masks_follow_symlinked_home_entry)
{
        /* ~/.claude -> ~/.ssh: the writable bind of ~/.claude exposes the keys and is masked. */
        mkdir_p(fmt("%s/.ssh", home));
        cr_assert_eq(symlink(".ssh", fmt("%s/.claude", home)), 0);
        lower_ok();
        assert_masked(fmt("%s/.claude", home));
}

Test(lower, masks_cover_bind_inside_blocked_path)
{
        /* Binding something inside a hidden path would show it again: the bind is masked. */
        mkdir_p(in_root("vault/sub"));
        cr_assert_eq(cordon_list_add(&s.extra_blocked_paths, in_root("vault"), "--hide"), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("vault/sub"), "--ro"), 0);
        lower_ok();
        cr_assert_not_null(rule(in_root("vault/sub"), CORDON_ACCESS_RO));
        assert_masked(in_root("vault/sub"));
}

Test(lower, masks_cover_bind_inside_credentials)
{
        mkdir_p(fmt("%s/.aws/sub", home));
        cr_assert_eq(symlink(home, in_root("homelink")), 0);
        h.home = in_root("homelink");
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, fmt("%s/.aws/sub", home), "--ro"), 0);
        lower_ok();
        assert_masked(fmt("%s/.aws/sub", home));
}

Test(lower, hide_inside_project)
{
        mkdir_p(fmt("%s/secrets", project));
        cr_assert_eq(cordon_list_add(&s.extra_blocked_paths, fmt("%s/secrets", project), "--hide"),
                     0);
        cr_assert_eq(cordon_list_add(&s.extra_blocked_paths, fmt("%s/absent", project), "--hide"),
                     0);
        lower_ok();
        assert_masked(fmt("%s/secrets", project));
        cr_assert_str_eq(rule(fmt("%s/secrets", project), CORDON_ACCESS_MASKED)->origin, "--hide");
        cr_assert_null(rule(fmt("%s/absent", project), CORDON_ACCESS_MASKED),
                       "a missing hidden path is skipped");
}

Test(lower, hide_relative_to_cwd)
{
        mkdir_p(fmt("%s/private", project));
        cr_assert_eq(cordon_list_add(&s.extra_blocked_paths, "private", "--hide"), 0);
        lower_ok();
        assert_masked(fmt("%s/private", project));
}

Test(lower, hide_host_root_refused)
{
        cr_assert_eq(cordon_list_add(&s.extra_blocked_paths, "/", "--hide"), 0);
        cr_assert_eq(lower(), -EINVAL);
        cr_assert(strstr(diag.message, "root"), "%s", diag.message);
}

Test(lower, blocked_file_placeholder_created)
{
        const char *env = fmt("%s/config/.env", project);
        cr_assert_eq(cordon_list_add(&s.blocked_files, env, "--mask"), 0);
        lower_ok();
        struct stat st;
        cr_assert_eq(stat(env, &st), 0, "a placeholder exists");
        cr_assert(S_ISREG(st.st_mode));
        cr_assert_eq(st.st_size, 0);
        cr_assert(warned(env), "a warning names the placeholder");
        cr_assert(warned(fmt("%s/config", project)), "a warning names the created directory");
        assert_masked(env);
}

Test(lower, blocked_file_existing_no_warning)
{
        const char *env = fmt("%s/.env", project);
        write_file(env, "SECRET=1\n");
        cr_assert_eq(cordon_list_add(&s.blocked_files, env, "--mask"), 0);
        lower_ok();
        cr_assert_not(warned(env));
        assert_masked(env);
        FILE *f = fopen(env, "re");
        char buf[32] = "";
        cr_assert_not_null(f);
        cr_assert_not_null(fgets(buf, sizeof(buf), f));
        fclose(f);
        cr_assert_str_eq(buf, "SECRET=1\n", "an existing file is left alone");
}

Test(lower, blocked_file_uncreatable_refused)
{
        /* A placeholder that cannot be made means the file would be unprotected: refuse. A
         * regular file where a parent directory should be stops root as well. */
        cr_assert_eq(close(open(fmt("%s/notadir", project), O_CREAT | O_WRONLY, 0600)), 0);
        cr_assert_eq(cordon_list_add(&s.blocked_files, fmt("%s/notadir/.env", project), "--mask"),
                     0);
        int r = lower();
        cr_assert_eq(r, -ENOTDIR, "%d (%s)", r, diag.message);
        cr_assert(strstr(diag.message, "notadir/.env"), "%s", diag.message);
        cr_assert(strstr(diag.message, "--mask"), "%s", diag.message);
}

Test(lower, blocked_file_in_unwritable_dir_refused)
{
        /* Permission checks only bind unprivileged callers; as root this runs the
         * parent-is-a-file case above instead of skipping. */
        mkdir_p(fmt("%s/ro", project));
        cr_assert_eq(chmod(fmt("%s/ro", project), 0500), 0);
        const char *target = geteuid() == 0 ? "notadir2/.env" : "ro/.env";
        if (geteuid() == 0)
                cr_assert_eq(close(open(fmt("%s/notadir2", project), O_CREAT | O_WRONLY, 0600)), 0);
        cr_assert_eq(cordon_list_add(&s.blocked_files, fmt("%s/%s", project, target), "--mask"), 0);
        int r = lower();
        chmod(fmt("%s/ro", project), 0700);
        cr_assert_eq(r, geteuid() == 0 ? -ENOTDIR : -EACCES, "%d (%s)", r, diag.message);
        cr_assert(strstr(diag.message, ".env"), "%s", diag.message);
}

/* ---- binds from the command line ---- */

Test(lower, extra_writable_and_readonly)
{
        mkdir_p(in_root("data"));
        mkdir_p(in_root("cache"));
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("data"), "--ro"), 0);
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, in_root("cache"), "--rw"), 0);
        lower_ok();
        const struct cordon_fs_rule *d = rule(in_root("data"), CORDON_ACCESS_RO);
        cr_assert_not_null(d);
        cr_assert_str_eq(d->origin, "--ro");
        cr_assert_not_null(rule(in_root("cache"), CORDON_ACCESS_RW));
}

Test(lower, extra_missing_path_refused_builtin_skipped)
{
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("absent"), "--ro"), 0);
        cr_assert_eq(lower(), -ENOENT);
        cr_assert(strstr(diag.message, "absent"), "%s", diag.message);
        cr_assert(strstr(diag.message, "--ro"), "%s", diag.message);

        cordon_settings_clear(&s);
        cr_assert_eq(cordon_settings_init_defaults(&s, home), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("absent"), "built-in default"), 0);
        lower_ok();
}

Test(lower, host_root_bind_refused)
{
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, "/", "--rw"), 0);
        cr_assert_eq(lower(), -EINVAL);
        cr_assert(strstr(diag.message, "root"), "%s", diag.message);

        cordon_settings_clear(&s);
        cr_assert_eq(cordon_settings_init_defaults(&s, home), 0);
        cr_assert_eq(symlink("/", in_root("rootlink")), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("rootlink"), "--ro"), 0);
        cr_assert_lt(lower(), 0, "a symlink to / is refused as well");
}

Test(lower, symlinked_bind_recreates_link)
{
        mkdir_p(in_root("target"));
        cr_assert_eq(symlink("target", in_root("link")), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("link"), "--ro"), 0);
        lower_ok();
        const struct cordon_fs_rule *l = rule(in_root("link"), CORDON_ACCESS_SYMLINK);
        cr_assert_not_null(l);
        cr_assert_str_eq(l->host, "target");
        cr_assert_not_null(rule(in_root("target"), CORDON_ACCESS_RO));
}

Test(lower, flags_override_defaults_for_same_path)
{
        /* A later source wins for the same guest path: --rw of a default read-only mount. */
        mkdir_p(in_root("shared"));
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("shared"), "built-in default"), 0);
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, in_root("shared"), "--rw"), 0);
        lower_ok();
        cr_assert_not_null(rule(in_root("shared"), CORDON_ACCESS_RW));
        cr_assert_null(rule(in_root("shared"), CORDON_ACCESS_RO));
}

/* ---- devices ---- */

Test(lower, device_exposed_and_blacklisted)
{
        cr_assert_eq(cordon_list_add(&s.devices, "/dev/null", "--device"), 0);
        lower_ok();
        const struct cordon_fs_rule *d = rule("/dev/null", CORDON_ACCESS_DEVICE);
        cr_assert_not_null(d);
        cr_assert_str_eq(d->host, "/dev/null");

        cr_assert_eq(cordon_list_add(&s.devices_blacklist, "/dev/nu*", "test"), 0);
        lower_ok();
        cr_assert_null(rule("/dev/null", CORDON_ACCESS_DEVICE));
        cr_assert(warned("/dev/null"));
}

Test(lower, device_outside_dev_or_missing)
{
        write_file(in_root("fake"), "");
        cr_assert_eq(cordon_list_add(&s.devices, in_root("fake"), "--device"), 0);
        cr_assert_eq(cordon_list_add(&s.devices, "/dev/cordon-no-such-device*", "--device"), 0);
        lower_ok();
        cr_assert_null(rule(in_root("fake"), CORDON_ACCESS_DEVICE));
        cr_assert(warned(in_root("fake")));
        cr_assert(warned("cordon-no-such-device"), "a glob matching nothing is reported");
}

/* ---- passwd ---- */

Test(lower, passwd_filtered)
{
        lower_ok();
        const struct cordon_fs_rule *pw = rule("/etc/passwd", CORDON_ACCESS_DATA);
        const struct cordon_fs_rule *gr = rule("/etc/group", CORDON_ACCESS_DATA);
        cr_assert_not_null(pw);
        cr_assert_not_null(gr);
        cr_assert_not_null(rule("/etc/nsswitch.conf", CORDON_ACCESS_DATA));
        cr_assert_null(strstr(pw->host, "someoneelse"), "%s", pw->host);
        cr_assert_not_null(strstr(pw->host, "daemon:x:1:1"), "%s", pw->host);
        cr_assert_not_null(strstr(pw->host, fmt(":x:%u:%u:", (unsigned)h.uid, (unsigned)h.gid)),
                           "the caller resolves: %s", pw->host);
        cr_assert_null(strstr(gr->host, "someoneelse:x:4242"), "%s", gr->host);
        cr_assert_not_null(strstr(gr->host, "wheel:x:10:"), "%s", gr->host);
        cr_assert_not_null(strstr(gr->host, fmt(":x:%u:", (unsigned)h.gid)), "%s", gr->host);
}

Test(lower, passwd_for_unknown_user)
{
        h.uid = 4242;
        h.gid = 4242;
        lower_ok();
        const struct cordon_fs_rule *pw = rule("/etc/passwd", CORDON_ACCESS_DATA);
        cr_assert_not_null(pw);
        cr_assert_not_null(strstr(pw->host, ":x:4242:4242:"), "%s", pw->host);
        cr_assert_eq(p->identity.uid, 4242);
}

Test(lower, passwd_not_filtered_when_disabled)
{
        s.filter_passwd = false;
        lower_ok();
        cr_assert_null(rule("/etc/passwd", CORDON_ACCESS_DATA));
        cr_assert_null(rule("/etc/nsswitch.conf", CORDON_ACCESS_DATA));
}

Test(lower, passwd_unreadable_refused)
{
        h.passwd_path = in_root("no-such-passwd");
        cr_assert_eq(lower(), -ENOENT);
        cr_assert(strstr(diag.message, "passwd"), "%s", diag.message);
}

/* ---- environment ---- */

Test(lower, environment_filtered_and_counted)
{
        lower_ok();
        cr_assert_eq(p->n_env_blocked, 3, "GH_TOKEN, GITHUB_PAT, SSH_AUTH_SOCK");
        cr_assert_null(env_get("GH_TOKEN"));
        cr_assert_null(env_get("GITHUB_PAT"));
        cr_assert_null(env_get("SSH_AUTH_SOCK"));
        cr_assert_str_eq(env_get("ANTHROPIC_API_KEY"), "sk-allowed", "allow list wins");
        cr_assert_str_eq(env_get("PATH"), "/usr/bin:/bin");
        cr_assert_str_eq(env_get("TERM"), "xterm");
        cr_assert_str_eq(env_get("SANDBOX_ACTIVE"), "1");
        cr_assert_str_eq(env_get("SANDBOX_BACKEND"), "ns");
        cr_assert_str_eq(env_get("PWD"), project);
        STRV_FOREACH (e, p->envp)
                cr_assert(strchr(*e, '='), "'%s' has no '='", *e);
        cr_assert_eq(p->env_rules.blocked_names.n, s.blocked_env_vars.n);
}

Test(lower, environment_setenv_applied_and_validated)
{
        cr_assert_eq(cordon_list_add(&s.sandbox_env, "TERM=dumb", "--setenv"), 0);
        cr_assert_eq(cordon_list_add(&s.sandbox_env, "NEW=1", "--setenv"), 0);
        lower_ok();
        cr_assert_str_eq(env_get("TERM"), "dumb");
        cr_assert_str_eq(env_get("NEW"), "1");

        cr_assert_eq(cordon_list_add(&s.sandbox_env, "BAD-NAME=1", "sandbox.conf:9"), 0);
        cr_assert_eq(lower(), -EINVAL);
        cr_assert(strstr(diag.message, "BAD-NAME"), "%s", diag.message);
        cr_assert(strstr(diag.message, "sandbox.conf:9"), "%s", diag.message);
}

Test(lower, environment_cannot_fake_sandbox_markers)
{
        cr_assert_eq(cordon_list_add(&s.sandbox_env, "SANDBOX_ACTIVE=0", "--setenv"), 0);
        lower_ok();
        cr_assert_str_eq(env_get("SANDBOX_ACTIVE"), "1");
}
