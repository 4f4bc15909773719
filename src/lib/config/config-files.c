/* Finding the layers of sandbox.conf (see config-files.h). An admin baseline is opened one
 * component at a time from / without following a symlink, each directory and the file checked
 * on its open fd: an admin file someone other than root could change, or swap through a
 * directory they could write, would hand them the admin's floor. */
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/config/config-files.h"
#include "lib/config/config-scan.h"
#include "lib/policy/diag.h"
#include "lib/settings/settings.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

const char *cordon_config_getenv(char *const *envp, const char *name)
{
        size_t n = strlen(name);
        for (char *const *e = envp; e && *e; e++)
                if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
                        return *e + n + 1;
        return NULL;
}

void cordon_config_files_clear(struct cordon_config_files *f)
{
        for (size_t i = 0; f->files && i < f->n; i++) {
                free(f->files[i].path);
                free(f->files[i].real_path);
                free(f->files[i].text);
        }
        free(f->files);
        *f = (struct cordon_config_files){0};
}

/* Reads the open @fd (a regular file) as @path of @layer into @f. */
static int add_file(struct cordon_config_files *f, int fd, const char *path, const char *layer,
                    struct cordon_diag *diag)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = read_full_fd(fd, CORDON_CONFIG_FILE_MAX, &text, &len);
        if (r == -EFBIG)
                return cordon_diag_set(diag, r, "%s: larger than 1 MiB", path);
        if (r < 0)
                return cordon_diag_set(diag, r, "%s: cannot read: %s", path, strerror(-r));
        if (memchr(text, 0, len))
                return cordon_diag_set(diag, -EINVAL, "%s: holds a NUL byte", path);
        struct cordon_config_file *files = realloc(f->files, (f->n + 1) * sizeof(*files));
        if (!files)
                return -ENOMEM;
        f->files = files;
        struct cordon_config_file *cf = &f->files[f->n];
        *cf = (struct cordon_config_file){.layer = layer, .code = cordon_config_has_code(text)};
        if (!(cf->path = strdup(path)))
                return -ENOMEM;
        char real[PATH_MAX];
        if (realpath(path, real) && !streq(real, path) && !(cf->real_path = strdup(real))) {
                free(cf->path);
                return -ENOMEM;
        }
        cf->text = TAKE_PTR(text);
        f->n++;
        return 0;
}

/* ---- the admin baseline ---- */

static int check_owner(const struct stat *st, uid_t a, uid_t b)
{
        return st->st_uid == a || st->st_uid == b;
}

/* A directory above the admin file: owned by root (the test override too), and
 * writable by nobody else, except a root-owned sticky directory such as /tmp, where nobody
 * can rename or replace an entry they do not own. */
static int check_dir(int fd, const char *dir, const char *file, uid_t a, uid_t b,
                     struct cordon_diag *diag)
{
        struct stat st;
        if (fstat(fd, &st) < 0)
                return cordon_diag_set(diag, -errno, "%s: cannot check directory %s: %m", file,
                                       dir);
        if (st.st_uid != 0 && !check_owner(&st, a, b))
                return cordon_diag_set(diag, -EPERM,
                                       "%s: directory %s belongs to uid %u, not root: whoever "
                                       "owns it could replace the admin baseline",
                                       file, dir, (unsigned)st.st_uid);
        bool sticky_root = (st.st_mode & S_ISVTX) && st.st_uid == 0;
        if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !sticky_root)
                return cordon_diag_set(diag, -EPERM,
                                       "%s: directory %s is writable by group or others (mode "
                                       "%04o): they could replace the admin baseline",
                                       file, dir, (unsigned)(st.st_mode & 07777));
        return 0;
}

/* Opens admin file @path (absolute) component by component, never through a symlink, checking
 * each directory and the file on their fds, and reads it into @f. */
static int open_admin(struct cordon_config_files *f, const char *path, const char *what, uid_t a,
                      uid_t b, struct cordon_diag *diag)
{
        if (path[0] != '/')
                return cordon_diag_set(diag, -EINVAL, "%s: %s: not an absolute path", what, path);
        _cleanup_free_ char *copy = strdup(path);
        if (!copy)
                return -ENOMEM;
        _cleanup_close_ int dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return cordon_diag_set(diag, -errno, "cannot open /: %m");
        int r = check_dir(dfd, "/", path, a, b, diag);
        if (r < 0)
                return r;
        char *save = NULL, *comp = strtok_r(copy, "/", &save);
        if (!comp)
                return cordon_diag_set(diag, -EINVAL, "%s: %s: not a file", what, path);
        for (char *next; (next = strtok_r(NULL, "/", &save)); comp = next) {
                if (streq(comp, ".") || streq(comp, ".."))
                        return cordon_diag_set(diag, -EINVAL, "%s: %s: '.' or '..' in the path",
                                               what, path);
                int nfd = openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (nfd < 0 && errno == ENOENT)
                        return cordon_diag_set(diag, -ENOENT, "%s: %s: no such file", what, path);
                if (nfd < 0)
                        return cordon_diag_set(diag, errno == ELOOP ? -EPERM : -errno,
                                               "%s: %s: component '%s' is a symlink or cannot be "
                                               "opened as a directory: %m",
                                               what, path, comp);
                safe_close(dfd);
                dfd = nfd;
                /* The directory as reached so far, for the message. */
                char shown[PATH_MAX];
                snprintf(shown, sizeof(shown), "%.*s", (int)(comp + strlen(comp) - copy), path);
                if ((r = check_dir(dfd, shown, path, a, b, diag)) < 0)
                        return r;
        }
        if (streq(comp, ".") || streq(comp, ".."))
                return cordon_diag_set(diag, -EINVAL, "%s: %s: not a file", what, path);
        _cleanup_close_ int fd =
            openat(dfd, comp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT)
                return cordon_diag_set(diag, -ENOENT, "%s: %s: no such file", what, path);
        if (fd < 0)
                return cordon_diag_set(diag, errno == ELOOP ? -EPERM : -errno,
                                       "%s: %s: cannot open%s: %m", what, path,
                                       errno == ELOOP ? " (a symlink)" : "");
        struct stat st;
        if (fstat(fd, &st) < 0)
                return cordon_diag_set(diag, -errno, "%s: %s: %m", what, path);
        if (!S_ISREG(st.st_mode))
                return cordon_diag_set(diag, -EPERM, "%s: %s: not a regular file", what, path);
        if (st.st_uid != 0 && !check_owner(&st, a, b))
                return cordon_diag_set(diag, -EPERM,
                                       "%s: %s belongs to uid %u; the admin baseline must "
                                       "belong to root",
                                       what, path, (unsigned)st.st_uid);
        if (st.st_mode & (S_IWGRP | S_IWOTH))
                return cordon_diag_set(diag, -EPERM,
                                       "%s: %s is writable by group or others (mode %04o); the "
                                       "admin baseline must be writable by root only",
                                       what, path, (unsigned)(st.st_mode & 07777));
        if ((r = add_file(f, fd, path, "admin", diag)) < 0)
                return r;
        f->n_admin++;
        return 0;
}

/* The real baselines that exist, agent-sandbox's first, or (tests only) the file
 * CORDON_ADMIN_CONF names when there is none. A path that exists is read or refuses the start:
 * one that fails its checks is never passed over, so a site cannot lose its floor to a wrong
 * mode; one that cannot even be looked at (EACCES on the way) refuses too. */
static int find_admin(const struct cordon_config_where *w, struct cordon_config_files *f,
                      struct cordon_diag *diag)
{
        const char *const real[] = {
            w->agent_admin_path ? w->agent_admin_path : CORDON_AGENT_SANDBOX_ADMIN_CONF_PATH,
            w->admin_path ? w->admin_path : CORDON_ADMIN_CONF_PATH,
        };
        const char *over = cordon_config_getenv(w->envp, "CORDON_ADMIN_CONF");
        if (over && !*over)
                over = NULL;
        bool exists[ELEMENTSOF(real)];
        for (size_t i = 0; i < ELEMENTSOF(real); i++) {
                struct stat st;
                exists[i] = lstat(real[i], &st) == 0;
                if (!exists[i] && errno != ENOENT && errno != ENOTDIR)
                        return cordon_diag_set(diag, -errno,
                                               "admin baseline %s: cannot check it: %m", real[i]);
                if (exists[i] && over)
                        return cordon_diag_set(diag, -EPERM,
                                               "CORDON_ADMIN_CONF=%s is set, but the admin "
                                               "baseline %s exists: the test override never "
                                               "replaces a real baseline",
                                               over, real[i]);
        }
        for (size_t i = 0; i < ELEMENTSOF(real); i++) {
                int r = exists[i] ? open_admin(f, real[i], "admin baseline", w->admin_owner,
                                               w->admin_owner, diag)
                                  : 0;
                if (r < 0)
                        return r;
        }
        if (f->n_admin == 0 && over) {
                int r = open_admin(f, over, "CORDON_ADMIN_CONF", 0, 0, diag);
                if (r < 0)
                        return r;
        }
        /* The caller's admin profile (a Slurm partition's): one more admin file after the
         * baselines, so that it can tighten them but whatever it sets is enforced as theirs. */
        if (w->admin_profile)
                return open_admin(f, w->admin_profile, "admin profile", w->admin_owner,
                                  w->admin_owner, diag);
        return 0;
}

/* ---- the user's files ---- */

/* @a/@b into @buf; -ENAMETOOLONG when it does not fit. */
static int join(char *buf, size_t size, const char *a, const char *b)
{
        int n = snprintf(buf, size, "%s/%s", a, b);
        return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Opens @path following symlinks (a dotfile manager's links are the user's business) and reads
 * it when it is a regular file. Returns 1 when added, 0 when missing (or not a regular file,
 * with @skip_other), -errno. */
static int open_user(struct cordon_config_files *f, const char *path, const char *layer,
                     bool skip_other, struct cordon_diag *diag)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
                return 0;
        if (fd < 0)
                return cordon_diag_set(diag, -errno, "%s: cannot open: %m", path);
        struct stat st;
        if (fstat(fd, &st) < 0)
                return cordon_diag_set(diag, -errno, "%s: %m", path);
        if (!S_ISREG(st.st_mode))
                return skip_other ? 0
                                  : cordon_diag_set(diag, -EINVAL, "%s: not a regular file", path);
        int r = add_file(f, fd, path, layer, diag);
        return r < 0 ? r : 1;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of conf.d/ *.conf in @dir, sorted (byte order); NULL and 0 when none. */
static int list_confd(const char *dir, char ***ret, size_t *ret_n)
{
        *ret = NULL;
        *ret_n = 0;
        DIR *d = opendir(dir);
        if (!d)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
        _cleanup_strv_free_ char **names = NULL;
        size_t n = 0;
        for (struct dirent *de; (de = readdir(d));) {
                size_t l = strlen(de->d_name);
                if (de->d_name[0] == '.' || l < 6 || !streq(de->d_name + l - 5, ".conf"))
                        continue;
                if (n >= CORDON_CONFD_MAX)
                        break;
                if (strv_extend(&names, de->d_name) < 0) {
                        closedir(d);
                        return -ENOMEM;
                }
                n++;
        }
        closedir(d);
        if (n > 1)
                qsort(names, n, sizeof(*names), cmp_str);
        *ret = TAKE_PTR(names);
        *ret_n = n;
        return 0;
}

static bool is_regular(const char *path)
{
        struct stat st;
        return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Does @dir hold a user file (@name) or a conf.d/ *.conf? */
static bool dir_has_files(const char *dir, const char *const *names)
{
        char path[PATH_MAX];
        for (const char *const *n = names; *n; n++) {
                if (join(path, sizeof(path), dir, *n) == 0 && is_regular(path))
                        return true;
        }
        if (join(path, sizeof(path), dir, "conf.d") < 0)
                return false;
        _cleanup_strv_free_ char **confd = NULL;
        size_t n = 0;
        return list_confd(path, &confd, &n) == 0 && n > 0;
}

/* Writes the commented default to @dir/sandbox.conf, making @dir (and its parent, ~/.config)
 * with mode 0700 when missing. Never replaces a file (O_EXCL) nor writes through a symlink.
 * Returns 1 when written, 0 when it could not be (with a warning), -ENOMEM. */
static int write_default(const char *home, const char *dir, const char *path, bool announce,
                         char ***warnings)
{
        char parent[PATH_MAX];
        snprintf(parent, sizeof(parent), "%s/.config", home);
        (void)mkdir(parent, 0700);
        (void)mkdir(dir, 0700);
        _cleanup_free_ char *text = cordon_config_default_text();
        if (!text)
                return -ENOMEM;
        _cleanup_close_ int fd =
            open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        /* Another cordon starting at the same moment wrote it first: nothing to say. */
        if (fd < 0 && errno == EEXIST)
                return 0;
        int r = fd < 0 ? -errno : write_all(fd, text, strlen(text));
        if (r < 0) {
                if (fd >= 0)
                        (void)unlink(path);
                return strv_extendf(warnings, "could not write a default %s: %s", path,
                                    strerror(-r));
        }
        if (!announce)
                return 1;
        r = strv_extendf(warnings, "wrote a commented default configuration to %s%s", path,
                         " (every variable at its default; see cordon-config(5))");
        return r < 0 ? r : 1;
}

static int find_user(const struct cordon_config_where *w, struct cordon_config_files *f,
                     char ***warnings, struct cordon_diag *diag)
{
        const char *home = cordon_config_getenv(w->envp, "HOME");
        const char *named_var = "CORDON_CONF";
        const char *named = cordon_config_getenv(w->envp, named_var);
        if (!named || !*named) {
                named_var = "SANDBOX_CONF";
                named = cordon_config_getenv(w->envp, named_var);
        }
        if (named && !*named)
                named = NULL;
        int r;

        char own[PATH_MAX] = "", legacy[PATH_MAX] = "", path[PATH_MAX];
        bool have_home = home && home[0] == '/';
        if (have_home) {
                snprintf(own, sizeof(own), "%s/.config/cordon", home);
                snprintf(legacy, sizeof(legacy), "%s/.config/agent-sandbox", home);
        }
        /* Beside an admin baseline, either one, the user's file is user.conf (a sandbox.conf
         * written for a machine without one is read when there is no user.conf), in cordon's
         * directory as in agent-sandbox's. */
        static const char *const with_admin[] = {"user.conf", "sandbox.conf", NULL};
        static const char *const alone[] = {"sandbox.conf", NULL};
        const char *const *names = f->n_admin ? with_admin : alone;
        const char *base = own;
        if (have_home && !dir_has_files(own, names) && dir_has_files(legacy, names)) {
                base = legacy;
                if ((r = strv_extendf(warnings,
                                      "reading agent-sandbox's configuration in %s (%s has "
                                      "none of cordon's own)",
                                      legacy, own)) < 0)
                        return r;
        }

        bool any = false;
        if (named) {
                char abs[PATH_MAX];
                if (named[0] != '/') {
                        char cwd[PATH_MAX];
                        if (!getcwd(cwd, sizeof(cwd)))
                                return cordon_diag_set(diag, -errno, "getcwd: %m");
                        if (join(abs, sizeof(abs), cwd, named) < 0)
                                return cordon_diag_set(diag, -ENAMETOOLONG,
                                                       "%s: the path is too long", named_var);
                        named = abs;
                }
                if ((r = open_user(f, named, "user", false, diag)) < 0)
                        return r;
                if (r == 0)
                        return cordon_diag_set(diag, -ENOENT, "%s=%s: no such file", named_var,
                                               named);
                any = true;
        } else if (have_home) {
                for (const char *const *n = names; *n && !any; n++) {
                        if (join(path, sizeof(path), base, *n) < 0)
                                continue;
                        if ((r = open_user(f, path, "user", false, diag)) < 0)
                                return r;
                        any = r > 0;
                }
        }
        if (!have_home)
                return 0;

        char confd[PATH_MAX];
        snprintf(confd, sizeof(confd), "%s/conf.d", base);
        _cleanup_strv_free_ char **entries = NULL;
        size_t n = 0;
        if ((r = list_confd(confd, &entries, &n)) < 0)
                return cordon_diag_set(diag, r, "%s: cannot list: %s", confd, strerror(-r));
        for (size_t i = 0; i < n; i++) {
                if (join(path, sizeof(path), confd, entries[i]) < 0)
                        continue;
                if ((r = open_user(f, path, "conf.d", true, diag)) < 0)
                        return r;
                any |= r > 0;
        }

        if (!any && w->write_default) {
                snprintf(path, sizeof(path), "%s/sandbox.conf", own);
                if ((r = write_default(home, own, path, w->announce_default, warnings)) < 0)
                        return r;
                if (r > 0 && (r = open_user(f, path, "user", false, diag)) < 0)
                        return r;
        }
        return 0;
}

int cordon_config_find(const struct cordon_config_where *w, struct cordon_config_files *ret,
                       char ***warnings, struct cordon_diag *diag)
{
        struct cordon_config_files f = {0};
        int r = find_admin(w, &f, diag);
        if (r >= 0)
                r = find_user(w, &f, warnings, diag);
        if (r < 0) {
                cordon_config_files_clear(&f);
                return r;
        }
        *ret = f;
        return 0;
}

/* ---- the default file ---- */

static int append(char **buf, size_t *len, const char *s)
{
        size_t l = strlen(s);
        char *n = realloc(*buf, *len + l + 1);
        if (!n)
                return -ENOMEM;
        memcpy(n + *len, s, l + 1);
        *buf = n;
        *len += l;
        return 0;
}

/* @v in bash's single quotes ('\'' for a quote); "$HOME" stays an expansion. */
static int append_quoted(char **buf, size_t *len, const char *v)
{
        if (streq(v, "$HOME"))
                return append(buf, len, "\"$HOME\"");
        int r = append(buf, len, "'");
        for (const char *p = v; r >= 0 && *p; p++) {
                char c[2] = {*p, 0};
                r = append(buf, len, *p == '\'' ? "'\\''" : c);
        }
        return r < 0 ? r : append(buf, len, "'");
}

char *cordon_config_default_text(void)
{
        char *buf = NULL;
        size_t len = 0;
        int r = append(&buf, &len,
                       "# cordon's sandbox.conf: bash, read before every sandbox starts\n"
                       "# (see cordon-config(5)). Every variable is listed at its built-in\n"
                       "# default, commented out. Uncomment a line to change it; for a list,\n"
                       "# NAME+=(...) adds to the default and NAME=(...) replaces it.\n"
                       "# A file of comments only is not run at all.\n");
        for (size_t i = 0; r >= 0 && i < cordon_vars_count; i++) {
                const struct cordon_var *v = &cordon_vars[i];
                char line[512];
                const char *note = v->status == CORDON_VAR_UNSUPPORTED
                                       ? " (not enforced by cordon yet: only the default is "
                                         "accepted)"
                                   : v->status == CORDON_VAR_NOOP ? " (accepted; changes nothing)"
                                                                  : "";
                snprintf(line, sizeof(line), "\n# %s: %s%s%s\n#%s=", v->name,
                         v->type == CORDON_VAR_LIST ? "a list; " : "",
                         v->expected ? v->expected : "any text", note, v->name);
                r = append(&buf, &len, line);
                if (r >= 0 && v->type == CORDON_VAR_LIST) {
                        r = append(&buf, &len, "(");
                        for (const char *const *d = v->defaults; r >= 0 && d && *d; d++) {
                                if (d != v->defaults)
                                        r = append(&buf, &len, " ");
                                if (r >= 0)
                                        r = append_quoted(&buf, &len, *d);
                        }
                        if (r >= 0)
                                r = append(&buf, &len, ")");
                } else if (r >= 0)
                        r = append_quoted(&buf, &len,
                                          v->defaults && v->defaults[0] ? v->defaults[0] : "");
                if (r >= 0)
                        r = append(&buf, &len, "\n");
        }
        if (r < 0) {
                free(buf);
                return NULL;
        }
        return buf;
}
