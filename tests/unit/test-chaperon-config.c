/* Unit tests for the chaperon's configuration (src/slurm/chaperon-config.c): the supervisor's
 * JSON parsed into the config and the wrapper's arguments, read from a descriptor as from
 * text; each missing key, wrong type and value out of range refused with -EINVAL and a reason;
 * the size limit. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <jansson.h>

#include "shared/fd-util.h"
#include "shared/macro.h"
#include "slurm/chaperon.h"

static struct chaperon_config c;
static char why[512];

static void clear_config(void)
{
        chaperon_config_clear(&c);
}

TestSuite(chaperon_config, .fini = clear_config);

#define GOOD                                                                                       \
        "{\"scope\": \"project\", \"uid\": 1000, \"log_level\": 2, \"log_retain_days\": 30,"       \
        " \"session\": \"a1b2\", \"project\": \"/home/u/proj\", \"user\": \"u\","                  \
        " \"read_roots\": [\"/usr\", \"/home/u/proj\"], \"write_roots\": [\"/home/u/proj\"],"      \
        " \"blocked_env\": [\"GH_TOKEN\"], \"blocked_env_patterns\": [\"*_TOKEN\", \"AWS_*\"],"    \
        " \"backend\": \"ns\", \"net_mode\": \"filtered\"}"

static int parse(const char *text)
{
        chaperon_config_clear(&c);
        why[0] = 0;
        return chaperon_config_parse(text, strlen(text), &c, why, sizeof(why));
}

static void check_good(void)
{
        cr_assert_eq(c.scope, 1);
        cr_assert_eq(c.uid, 1000);
        cr_assert_eq(c.log_level, CORDON_CHAPERON_WARN);
        cr_assert_eq(c.log_retain_days, 30);
        cr_assert_str_eq(c.session, "a1b2");
        cr_assert_str_eq(c.project, "/home/u/proj");
        cr_assert_str_eq(c.user, "u");
        cr_assert_eq(c.read_roots.n, 2);
        cr_assert_str_eq(c.read_roots.items[0].value, "/usr");
        cr_assert_str_eq(c.read_roots.items[1].value, "/home/u/proj");
        cr_assert_eq(c.write_roots.n, 1);
        cr_assert_eq(c.blocked_env.n, 1);
        cr_assert_str_eq(c.blocked_env.items[0].value, "GH_TOKEN");
        cr_assert_eq(c.blocked_env_pat.n, 2);
        cr_assert_str_eq(c.blocked_env_pat.items[1].value, "AWS_*");
        cr_assert_str_eq(c.net_mode, "filtered");
        static const char *const wrap[] = {"run",       "-q", "--project-dir", "/home/u/proj",
                                           "--backend", "ns", "--net",         "filtered"};
        for (size_t i = 0; i < ELEMENTSOF(wrap); i++)
                cr_assert_str_eq(c.wrap_args[i], wrap[i]);
        cr_assert_null(c.wrap_args[ELEMENTSOF(wrap)]);
        /* What main() sets later is not the parser's. */
        cr_assert_null(c.cordon);
        cr_assert_null(c.state_dir);
        cr_assert_null(c.log);
}

Test(chaperon_config, good)
{
        cr_assert_eq(parse(GOOD), 0, "%s", why);
        check_good();
}

Test(chaperon_config, scopes)
{
        static const char *const names[] = {"session", "project", "user", "none"};
        for (int i = 0; i < 4; i++) {
                char text[1024];
                snprintf(text, sizeof(text),
                         "{\"scope\": \"%s\", \"uid\": 0, \"log_level\": 0, \"log_retain_days\": "
                         "0, \"session\": \"\", \"project\": \"/\", \"user\": \"root\", "
                         "\"read_roots\": [], \"write_roots\": [], \"blocked_env\": [], "
                         "\"blocked_env_patterns\": [], \"backend\": \"landlock\", \"net_mode\": "
                         "\"open\"}",
                         names[i]);
                cr_assert_eq(parse(text), 0, "%s: %s", names[i], why);
                cr_assert_eq(c.scope, i);
                cr_assert_str_eq(chaperon_config_scope_name(i), names[i]);
        }
        cr_assert_null(chaperon_config_scope_name(-1));
        cr_assert_null(chaperon_config_scope_name(4));
}

Test(chaperon_config, read_from_a_descriptor)
{
        int fd = memfd_create("config", MFD_CLOEXEC);
        cr_assert_geq(fd, 0, "%m");
        cr_assert_eq(write_all(fd, GOOD, strlen(GOOD)), 0);
        cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
        cr_assert_eq(chaperon_config_read(fd, &c, why, sizeof(why)), 0, "%s", why);
        close(fd);
        check_good();

        /* A pipe, as the supervisor gives it. */
        chaperon_config_clear(&c);
        int p[2];
        cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
        cr_assert_eq(write_all(p[1], GOOD, strlen(GOOD)), 0);
        close(p[1]);
        cr_assert_eq(chaperon_config_read(p[0], &c, why, sizeof(why)), 0, "%s", why);
        close(p[0]);
        check_good();

        /* A descriptor that cannot be read. */
        chaperon_config_clear(&c);
        cr_assert_eq(chaperon_config_read(-1, &c, why, sizeof(why)), -EBADF);
        cr_assert(strstr(why, "cannot read the configuration"), "%s", why);
}

/* @key's value in GOOD replaced by @value (NULL: the key left out). */
static int parse_with(const char *key, const char *value)
{
        json_error_t e;
        json_t *o = json_loads(GOOD, 0, &e);
        cr_assert_not_null(o);
        if (value) {
                json_t *v = json_loads(value, JSON_DECODE_ANY, &e);
                cr_assert_not_null(v, "%s", value);
                cr_assert_eq(json_object_set_new(o, key, v), 0);
        } else
                cr_assert_eq(json_object_del(o, key), 0);
        char *text = json_dumps(o, JSON_COMPACT);
        json_decref(o);
        cr_assert_not_null(text);
        int r = parse(text);
        free(text);
        return r;
}

static void refused(const char *key, const char *value)
{
        int r = parse_with(key, value);
        cr_assert_eq(r, -EINVAL, "%s=%s: %d", key, value ? value : "(none)", r);
        cr_assert(why[0], "a reason");
}

Test(chaperon_config, every_key_required)
{
        static const char *const keys[] = {"scope",
                                           "uid",
                                           "log_level",
                                           "log_retain_days",
                                           "session",
                                           "project",
                                           "user",
                                           "read_roots",
                                           "write_roots",
                                           "blocked_env",
                                           "blocked_env_patterns",
                                           "backend",
                                           "net_mode"};
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                refused(keys[i], NULL);
        /* Positive control: the same helper with a value that fits. */
        cr_assert_eq(parse_with("user", "\"v\""), 0, "%s", why);
        cr_assert_str_eq(c.user, "v");
}

Test(chaperon_config, wrong_types_and_ranges)
{
        refused("scope", "\"everyone\"");
        refused("scope", "\"Project\"");
        refused("scope", "1");
        refused("uid", "\"1000\"");
        refused("uid", "1000.0");
        refused("log_level", "-1");
        refused("log_level", "4");
        refused("log_level", "\"info\"");
        refused("log_retain_days", "-1");
        refused("log_retain_days", "null");
        refused("session", "1");
        refused("project", "null");
        refused("user", "[\"u\"]");
        refused("read_roots", "\"/usr\"");
        refused("read_roots", "[\"/usr\", 1]");
        refused("write_roots", "{}");
        refused("blocked_env", "[null]");
        refused("blocked_env_patterns", "[[\"x\"]]");
        refused("backend", "1");
        refused("net_mode", "true");
        /* The edges that are in range. */
        cr_assert_eq(parse_with("log_level", "3"), 0, "%s", why);
        cr_assert_eq(c.log_level, CORDON_CHAPERON_ERROR);
        cr_assert_eq(parse_with("log_retain_days", "0"), 0, "%s", why);
        cr_assert_eq(parse_with("read_roots", "[]"), 0, "%s", why);
        cr_assert_eq(c.read_roots.n, 0);
}

Test(chaperon_config, not_an_object)
{
        cr_assert_eq(parse(""), -EINVAL);
        cr_assert(strstr(why, "not a JSON object"), "%s", why);
        cr_assert_eq(parse("[]"), -EINVAL);
        cr_assert_eq(parse("\"project\""), -EINVAL);
        cr_assert_eq(parse(GOOD " {}"), -EINVAL);
        cr_assert_eq(parse("{\"scope\": \"project\", \"scope\": \"user\"}"), -EINVAL,
                     "duplicate keys");
}

Test(chaperon_config, size_limit)
{
        /* GOOD padded with blanks to the limit parses; a byte more is refused, by text and by
         * descriptor alike. */
        const size_t max = 1u << 20;
        _cleanup_free_ char *text = malloc(max + 1);
        cr_assert_not_null(text);
        memset(text, ' ', max + 1);
        memcpy(text, GOOD, strlen(GOOD));
        cr_assert_eq(chaperon_config_parse(text, max, &c, why, sizeof(why)), 0, "%s", why);
        check_good();
        chaperon_config_clear(&c);
        cr_assert_eq(chaperon_config_parse(text, max + 1, &c, why, sizeof(why)), -EFBIG);
        chaperon_config_clear(&c);

        int fd = memfd_create("config", MFD_CLOEXEC);
        cr_assert_geq(fd, 0, "%m");
        cr_assert_eq(write_all(fd, text, max + 1), 0);
        cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
        cr_assert_eq(chaperon_config_read(fd, &c, why, sizeof(why)), -EFBIG);
        cr_assert(strstr(why, "cannot read the configuration"), "%s", why);
        chaperon_config_clear(&c);
        cr_assert_eq(ftruncate(fd, (off_t)max), 0);
        cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
        cr_assert_eq(chaperon_config_read(fd, &c, why, sizeof(why)), 0, "%s", why);
        close(fd);
        check_good();
}
