/* The SPANK plugin's pure part (spank-args.h): plugstack.conf arguments, option values, the
 * mandatory partitions, environment differences. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/macro.h"
#include "shared/strv.h"
#include "slurm/spank/spank-args.h"

#include <cordon/cordon.h>

void cordon_spank_conf_clear(struct cordon_spank_conf *c)
{
        free(c->policy_dir);
        strv_free(c->enforce);
        *c = (struct cordon_spank_conf){0};
}

static int fail(char *err, size_t size, const char *arg, const char *why)
{
        snprintf(err, size, "plugin argument '%.200s': %s", arg, why);
        return -EINVAL;
}

static bool starts_with(const char *s, const char *prefix)
{
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A partition name as slurm.conf's PartitionName takes it here: letters, digits, '-', '_', '.'. */
static bool partition_name_ok(const char *n, size_t len)
{
        if (len == 0 || len > CORDON_SPANK_PARTITION_MAX)
                return false;
        for (size_t i = 0; i < len; i++) {
                char ch = n[i];
                if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                      (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.'))
                        return false;
        }
        return true;
}

static int parse_enforce(char ***enforce, const char *arg, const char *value, char *err,
                         size_t size)
{
        static const char prefix[] = "partition:";
        if (!starts_with(value, prefix))
                return fail(err, size, arg, "expected enforce=partition:NAME[,NAME...]");
        const char *p = value + strlen(prefix);
        for (;;) {
                size_t len = strcspn(p, ",");
                if (!partition_name_ok(p, len))
                        return fail(err, size, arg,
                                    "a partition name is empty, too long or holds a character "
                                    "other than letters, digits, '-', '_' and '.'");
                if (strv_length(*enforce) >= CORDON_SPANK_PARTITIONS_MAX)
                        return fail(err, size, arg, "more than 256 partitions");
                _cleanup_free_ char *name = strndup(p, len);
                if (!name)
                        return -ENOMEM;
                if (!strv_contains(*enforce, name) && strv_consume(enforce, TAKE_PTR(name)) < 0)
                        return -ENOMEM;
                if (!p[len])
                        return 0;
                p += len + 1;
        }
}

int cordon_spank_conf_parse(struct cordon_spank_conf *c, int ac, char *const *av, char *err,
                            size_t size)
{
        _cleanup_free_ char *dir = NULL;
        _cleanup_strv_free_ char **enforce = NULL;
        int r;
        for (int i = 0; i < ac; i++) {
                const char *a = av[i];
                if (strnlen(a, CORDON_SPANK_ARG_MAX + 1) > CORDON_SPANK_ARG_MAX)
                        return fail(err, size, a, "longer than 4096 bytes");
                if (starts_with(a, "policy_dir=")) {
                        const char *v = a + strlen("policy_dir=");
                        if (dir)
                                return fail(err, size, a, "policy_dir is given twice");
                        if (v[0] != '/')
                                return fail(err, size, a, "policy_dir must be an absolute path");
                        if (strstr(v, "/../") || strstr(v, "/./") ||
                            (strlen(v) >= 3 && streq(v + strlen(v) - 3, "/..")) ||
                            (strlen(v) >= 2 && streq(v + strlen(v) - 2, "/.")))
                                return fail(err, size, a, "policy_dir holds '.' or '..'");
                        if (!(dir = strdup(v)))
                                return -ENOMEM;
                        for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--)
                                dir[n - 1] = 0;
                } else if (starts_with(a, "enforce=")) {
                        if ((r = parse_enforce(&enforce, a, a + strlen("enforce="), err, size)) < 0)
                                return r;
                } else
                        return fail(err, size, a,
                                    "unknown (cordon_spank.so takes policy_dir=DIR and "
                                    "enforce=partition:NAME[,NAME...])");
        }
        if (!dir) {
                snprintf(err, size,
                         "plugin argument policy_dir=DIR is missing (the directory of "
                         "the profiles, PROFILE.conf)");
                return -EINVAL;
        }
        c->policy_dir = TAKE_PTR(dir);
        c->enforce = TAKE_PTR(enforce);
        return 0;
}

bool cordon_spank_partition_enforced(const struct cordon_spank_conf *c, const char *partition)
{
        if (!partition || !c->enforce)
                return false;
        for (const char *p = partition; *p;) {
                size_t len = strcspn(p, ",");
                STRV_FOREACH (e, c->enforce)
                        if (strlen(*e) == len && strncmp(*e, p, len) == 0)
                                return true;
                p += len;
                if (*p == ',')
                        p++;
        }
        return false;
}

int cordon_spank_profile_check(const char *name, char *err, size_t size)
{
        size_t len = strnlen(name, CORDON_SPANK_PROFILE_MAX + 1);
        bool ok = len > 0 && len <= CORDON_SPANK_PROFILE_MAX;
        for (size_t i = 0; ok && i < len; i++) {
                char ch = name[i];
                ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                     (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
        }
        if (ok)
                return 0;
        snprintf(err, size,
                 "profile '%.80s': expected 1 to 64 letters, digits, '-' or '_' (a file "
                 "PROFILE.conf of the site's policy directory)",
                 name);
        return -EINVAL;
}

int cordon_spank_network_check(const char *mode, char *err, size_t size)
{
        if (cordon_net_mode_from_string(mode) >= 0)
                return 0;
        snprintf(err, size, "network mode '%.80s': expected open or isolated", mode);
        return -EINVAL;
}

int cordon_spank_profile_path(const char *dir, const char *profile, char *buf, size_t size)
{
        int n = snprintf(buf, size, "%s%s%s.conf", dir, streq(dir, "/") ? "" : "/", profile);
        return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int cordon_spank_pmi_fd(const char *value)
{
        int fd = 0;
        if (!value || !*value || *value == '0')
                return -EINVAL;
        for (const char *c = value; *c; c++) {
                if (*c < '0' || *c > '9' || fd > CORDON_SPANK_PMI_FD_MAX / 10)
                        return -EINVAL;
                fd = fd * 10 + (*c - '0');
        }
        return fd >= 3 && fd <= CORDON_SPANK_PMI_FD_MAX ? fd : -EINVAL;
}

/* The entry of @env whose name is that of @entry (up to its '='), or NULL. */
static const char *find_name(char *const *env, const char *entry, size_t len)
{
        STRV_FOREACH (e, env)
                if (strncmp(*e, entry, len) == 0 && (*e)[len] == '=')
                        return *e;
        return NULL;
}

int cordon_spank_env_diff(char *const *from, char *const *to, char ***ret_unset, char ***ret_set)
{
        if (strv_length(from) > CORDON_SPANK_ENV_MAX || strv_length(to) > CORDON_SPANK_ENV_MAX)
                return -E2BIG;
        _cleanup_strv_free_ char **unset = NULL, **set = NULL;
        STRV_FOREACH (e, from) {
                const char *eq = strchr(*e, '=');
                if (!eq || eq == *e || find_name(to, *e, (size_t)(eq - *e)))
                        continue;
                _cleanup_free_ char *name = strndup(*e, (size_t)(eq - *e));
                if (!name ||
                    (!strv_contains(unset, name) && strv_consume(&unset, TAKE_PTR(name)) < 0))
                        return -ENOMEM;
        }
        STRV_FOREACH (e, to) {
                const char *eq = strchr(*e, '=');
                if (!eq || eq == *e)
                        continue;
                const char *old = find_name(from, *e, (size_t)(eq - *e));
                if (old && streq(old, *e))
                        continue;
                if (strv_extend(&set, *e) < 0)
                        return -ENOMEM;
        }
        *ret_unset = TAKE_PTR(unset);
        *ret_set = TAKE_PTR(set);
        return 0;
}
