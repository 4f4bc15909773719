/* Unit tests for src/lib/resolve/passwd-filter.c: the minimal passwd and group databases. */
#include <criterion/criterion.h>
#include <string.h>

#include "lib/resolve/passwd-filter.h"
#include "shared/macro.h"

static const char passwd[] = "root:x:0:0:root:/root:/bin/bash\n"
                             "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
                             "systemd-network:x:998:998::/:/usr/sbin/nologin\n"
                             "alice:x:1000:1000:Alice:/home/alice:/bin/bash\n"
                             "bob:x:1001:1001:Bob:/home/bob:/bin/bash\n"
                             "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
                             "svc:x:65533:65533::/:/bin/false\n"
                             "big:x:4294967295:1::/:/bin/false\n";

static const char group[] = "root:x:0:\n"
                            "adm:x:4:syslog,alice\n"
                            "sudo:x:27:alice,bob\n"
                            "alice:x:1000:\n"
                            "bob:x:1001:\n"
                            "nogroup:x:65534:\n";

static bool has_line(const char *text, const char *line)
{
        size_t l = strlen(line);
        for (const char *p = text; p && *p;) {
                if (strncmp(p, line, l) == 0 && (p[l] == '\n' || p[l] == 0))
                        return true;
                p = strchr(p, '\n');
                if (p)
                        p++;
        }
        return false;
}

static size_t count_lines(const char *text)
{
        size_t n = 0;
        for (const char *p = text; *p; p++)
                if (*p == '\n')
                        n++;
        return n;
}

Test(passwd, keeps_system_and_overflow_drops_users)
{
        _cleanup_free_ char *out = NULL;
        cr_assert_eq(
            cordon_passwd_filter(passwd, 1000, "alice:x:1000:1000:Alice:/home/alice:/bin/sh", &out),
            0);
        cr_assert(has_line(out, "root:x:0:0:root:/root:/bin/bash"), "%s", out);
        cr_assert(has_line(out, "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin"), "%s", out);
        cr_assert(has_line(out, "systemd-network:x:998:998::/:/usr/sbin/nologin"), "%s", out);
        cr_assert(has_line(out, "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin"), "%s",
                  out);
        cr_assert_null(strstr(out, "bob"), "other users are invisible: %s", out);
        cr_assert_null(strstr(out, "svc:"), "%s", out);
        cr_assert_null(strstr(out, "big:"), "%s", out);
        cr_assert_eq(count_lines(out), 5, "%s", out);
}

Test(passwd, replaces_callers_line)
{
        const char *self = "alice:x:1000:1000:Alice:/home/alice:/bin/sh";
        _cleanup_free_ char *out = NULL;
        cr_assert_eq(cordon_passwd_filter(passwd, 1000, self, &out), 0);
        cr_assert_not(has_line(out, "alice:x:1000:1000:Alice:/home/alice:/bin/bash"), "%s", out);
        /* The self line comes last, exactly once. */
        const char *first = strstr(out, "\nalice:");
        cr_assert_not_null(first, "%s", out);
        cr_assert_null(strstr(first + 1, "\nalice:"), "%s", out);
        size_t sl = strlen(self), ol = strlen(out);
        cr_assert_geq(ol, sl + 1);
        cr_assert_eq(strncmp(out + ol - sl - 1, self, sl), 0, "%s", out);
        cr_assert_eq(out[ol - 1], '\n');
}

Test(passwd, replaces_system_callers_line)
{
        /* Running as root: root's host line is replaced by the generated one. */
        _cleanup_free_ char *out = NULL;
        cr_assert_eq(cordon_passwd_filter(passwd, 0, "root:x:0:0::/root:/bin/sh", &out), 0);
        cr_assert(has_line(out, "root:x:0:0::/root:/bin/sh"), "%s", out);
        cr_assert_not(has_line(out, "root:x:0:0:root:/root:/bin/bash"), "%s", out);
        cr_assert(has_line(out, "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin"), "%s", out);
}

Test(passwd, directory_only_user_is_appended)
{
        _cleanup_free_ char *out = NULL;
        cr_assert_eq(
            cordon_passwd_filter(passwd, 50000, "carol:x:50000:50000::/home/carol:/bin/sh", &out),
            0);
        cr_assert(has_line(out, "carol:x:50000:50000::/home/carol:/bin/sh"), "%s", out);
}

Test(passwd, malformed_lines_dropped)
{
        static const char text[] = "good:x:5:5::/:/bin/sh\n"
                                   "nouid\n"
                                   "empty:x::5::/:/bin/sh\n"
                                   "neg:x:-1:5::/:/bin/sh\n"
                                   "alpha:x:abc:5::/:/bin/sh\n"
                                   "mixed:x:12ab:5::/:/bin/sh\n"
                                   "space:x: 7:5::/:/bin/sh\n"
                                   "huge:x:99999999999999999999:5::/:/bin/sh\n"
                                   "overflow:x:4294967296:5::/:/bin/sh\n"
                                   "\n"
                                   ":::\n"
                                   "+::::::\n"
                                   "last:x:6:6::/:/bin/sh";
        _cleanup_free_ char *out = NULL;
        cr_assert_eq(cordon_passwd_filter(text, 1000, NULL, &out), 0);
        cr_assert_str_eq(out, "good:x:5:5::/:/bin/sh\nlast:x:6:6::/:/bin/sh\n");
}

Test(passwd, empty_input)
{
        _cleanup_free_ char *a = NULL;
        _cleanup_free_ char *b = NULL;
        cr_assert_eq(cordon_passwd_filter("", 1000, NULL, &a), 0);
        cr_assert_str_eq(a, "");
        cr_assert_eq(cordon_passwd_filter("", 1000, "me:x:1000:1000::/:/bin/sh", &b), 0);
        cr_assert_str_eq(b, "me:x:1000:1000::/:/bin/sh\n");
}

Test(passwd, crlf_and_missing_final_newline)
{
        _cleanup_free_ char *out = NULL;
        cr_assert_eq(
            cordon_passwd_filter("a:x:1:1::/:/bin/sh\r\nb:x:2:2::/:/bin/sh", 1000, NULL, &out), 0);
        cr_assert(has_line(out, "b:x:2:2::/:/bin/sh"), "%s", out);
        cr_assert_eq(out[strlen(out) - 1], '\n', "every output line ends in a newline");
}

Test(group, keeps_system_and_self)
{
        _cleanup_free_ char *out = NULL;
        cr_assert_eq(cordon_group_filter(group, 1000, "alice:x:1000:", &out), 0);
        cr_assert(has_line(out, "root:x:0:"), "%s", out);
        cr_assert(has_line(out, "adm:x:4:syslog,alice"), "%s", out);
        cr_assert(has_line(out, "sudo:x:27:alice,bob"), "%s", out);
        cr_assert(has_line(out, "nogroup:x:65534:"), "%s", out);
        cr_assert(has_line(out, "alice:x:1000:"), "%s", out);
        cr_assert_not(has_line(out, "bob:x:1001:"), "%s", out);
        cr_assert_eq(count_lines(out), 5, "%s", out);
}

Test(group, replaces_self_line)
{
        _cleanup_free_ char *out = NULL;
        cr_assert_eq(cordon_group_filter("staff:x:50:alice,bob\n", 50, "staff:x:50:", &out), 0);
        cr_assert_str_eq(out, "staff:x:50:\n");
}

Test(group, keeps_gid_without_self_line)
{
        /* passwd-filter.h: group filtering keeps "gids below 1000 and 65534 plus @gid (from
         * @self_line when given)": without a self line the host's line for @gid stays. */
        _cleanup_free_ char *out = NULL;
        cr_assert_eq(cordon_group_filter(group, 1001, NULL, &out), 0);
        cr_assert(has_line(out, "bob:x:1001:"), "%s", out);
        cr_assert_not(has_line(out, "alice:x:1000:"), "%s", out);
}

Test(nsswitch, files_only)
{
        const char *n = cordon_nsswitch_files_only();
        cr_assert_not_null(n);
        cr_assert(strstr(n, "passwd:         files\n"), "%s", n);
        cr_assert(strstr(n, "group:          files\n"), "%s", n);
        cr_assert_null(strstr(n, "sss"));
        cr_assert_null(strstr(n, "ldap"));
        cr_assert_null(strstr(n, "systemd"));
}

Test(passwd, db_has_id)
{
        const char *db = "root:x:0:0:root:/root:/bin/bash\n"
                         "broken:x:12a:0::/:/bin/sh\n"
                         "alice:x:1000:1000:Alice:/home/alice:/bin/bash\n"
                         "nofield\n"
                         "bob:x:10001:100::/home/bob:/bin/sh";
        cr_assert(cordon_passwd_db_has_id(db, 0));
        cr_assert(cordon_passwd_db_has_id(db, 1000));
        cr_assert(cordon_passwd_db_has_id(db, 10001));   /* last line, no newline */
        cr_assert_not(cordon_passwd_db_has_id(db, 12));  /* malformed id */
        cr_assert_not(cordon_passwd_db_has_id(db, 100)); /* a gid field, not the id */
        cr_assert_not(cordon_passwd_db_has_id(db, 1001));
        cr_assert_not(cordon_passwd_db_has_id("", 0));
}

Test(passwd, home_of_a_uid)
{
        _cleanup_free_ char *h = NULL, *root = NULL;
        cr_assert_eq(cordon_passwd_db_home(passwd, 1000, &h), 0);
        cr_expect_str_eq(h, "/home/alice");
        cr_assert_eq(cordon_passwd_db_home(passwd, 0, &root), 0);
        cr_expect_str_eq(root, "/root");
        char *none = NULL;
        cr_expect_eq(cordon_passwd_db_home(passwd, 4242, &none), -ENOENT);
        cr_expect_null(none);
        /* The first well-formed line for the uid counts; one cut short is an error. */
        cr_expect_eq(cordon_passwd_db_home("a:x:7:7:gecos\n", 7, &none), -EINVAL);
        cr_expect_eq(cordon_passwd_db_home("a:x:7:7:g:/h\n", 7, &none), -EINVAL);
        _cleanup_free_ char *empty = NULL;
        cr_assert_eq(
            cordon_passwd_db_home("bad:x:z:7::/no:/bin/sh\na:x:7:7::/h7:/bin/sh\n", 7, &empty), 0);
        cr_expect_str_eq(empty, "/h7");
        cr_expect_null(none);
}
