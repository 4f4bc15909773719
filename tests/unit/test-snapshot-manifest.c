/* The rules the snapshot writer and restorer share (src/lib/snapshot/snapshot-manifest.c):
 * tree names, symlink targets, the manifest's keys, and the manifest's own checks. */
#include <criterion/criterion.h>
#include <string.h>

#include "lib/snapshot/snapshot-manifest.h"
#include "shared/json-util.h"

Test(snapshot_manifest, tree_names)
{
        cr_assert(cordon_snapshot_tree_name_is_valid("project"));
        cr_assert(cordon_snapshot_tree_name_is_valid("home-1.x_y"));
        cr_assert(!cordon_snapshot_tree_name_is_valid(NULL));
        cr_assert(!cordon_snapshot_tree_name_is_valid(""));
        cr_assert(!cordon_snapshot_tree_name_is_valid(".hidden"));
        cr_assert(!cordon_snapshot_tree_name_is_valid(".."));
        cr_assert(!cordon_snapshot_tree_name_is_valid("a/b"));
        cr_assert(!cordon_snapshot_tree_name_is_valid("a b"));
        cr_assert(!cordon_snapshot_tree_name_is_valid(CORDON_SNAPSHOT_MANIFEST_NAME));
        char longest[SNAPSHOT_TREE_NAME_MAX + 2];
        memset(longest, 'a', sizeof(longest));
        longest[SNAPSHOT_TREE_NAME_MAX] = 0;
        cr_assert(cordon_snapshot_tree_name_is_valid(longest));
        longest[SNAPSHOT_TREE_NAME_MAX] = 'a';
        longest[SNAPSHOT_TREE_NAME_MAX + 1] = 0;
        cr_assert(!cordon_snapshot_tree_name_is_valid(longest));
}

Test(snapshot_manifest, check_dirs)
{
        struct cordon_diag d = {0};
        struct cordon_snapshot_dir two[] = {{"a", 3}, {"b", 4}};
        cr_assert_eq(cordon_snapshot_check_dirs(two, 2, &d), 0);
        cr_assert_eq(cordon_snapshot_check_dirs(two, 0, &d), -EINVAL);
        struct cordon_snapshot_dir same[] = {{"a", 3}, {"a", 4}};
        cr_assert_eq(cordon_snapshot_check_dirs(same, 2, &d), -EINVAL);
        cr_assert(strstr(d.message, "'a' is named twice"), "%s", d.message);
        struct cordon_snapshot_dir nofd[] = {{"a", -1}};
        cr_assert_eq(cordon_snapshot_check_dirs(nofd, 1, &d), -EINVAL);
        struct cordon_snapshot_dir many[CORDON_SNAPSHOT_TREES_MAX + 1];
        cr_assert_eq(cordon_snapshot_check_dirs(many, CORDON_SNAPSHOT_TREES_MAX + 1, &d), -EINVAL);
}

Test(snapshot_manifest, link_targets)
{
        /* In the top directory (depth 0): nothing may climb. */
        cr_assert(cordon_snapshot_link_is_safe("a", 0));
        cr_assert(cordon_snapshot_link_is_safe("a/b/c", 0));
        cr_assert(cordon_snapshot_link_is_safe("./a", 0));
        cr_assert(cordon_snapshot_link_is_safe(".", 0));
        cr_assert(!cordon_snapshot_link_is_safe("..", 0));
        cr_assert(!cordon_snapshot_link_is_safe("../x", 0));
        cr_assert(!cordon_snapshot_link_is_safe("./../x", 0));
        /* Two directories down: two leading "..". */
        cr_assert(cordon_snapshot_link_is_safe("../../x", 2));
        cr_assert(cordon_snapshot_link_is_safe("../..", 2));
        cr_assert(cordon_snapshot_link_is_safe("..//../x", 2));
        cr_assert(!cordon_snapshot_link_is_safe("../../../x", 2));
        /* ".." after a named component, which may be a symlink: refused. */
        cr_assert(!cordon_snapshot_link_is_safe("a/../b", 2));
        cr_assert(!cordon_snapshot_link_is_safe("../a/..", 2));
        /* Absolute and empty. */
        cr_assert(!cordon_snapshot_link_is_safe("/etc/passwd", 5));
        cr_assert(!cordon_snapshot_link_is_safe("", 0));
        cr_assert(!cordon_snapshot_link_is_safe(NULL, 0));
        /* Names that merely start with dots. */
        cr_assert(cordon_snapshot_link_is_safe("...", 0));
        cr_assert(cordon_snapshot_link_is_safe("..a", 0));
}

Test(snapshot_manifest, path_keys)
{
        char *k = cordon_snapshot_path_key("t/a b.c");
        cr_assert_str_eq(k, "t/a b.c");
        free(k);
        k = cordon_snapshot_path_key("t/100%\tx\xc3\xa9\xff");
        cr_assert_str_eq(k, "t/100%25%09x%C3%A9%FF");
        free(k);
        /* One to one: the escape of '%' cannot be mistaken for an escaped byte. */
        char *a = cordon_snapshot_path_key("%41"), *b = cordon_snapshot_path_key("A");
        cr_assert_str_neq(a, b);
        free(a);
        free(b);
}

Test(snapshot_manifest, hex)
{
        uint8_t d[SNAPSHOT_SHA256_SIZE];
        for (size_t i = 0; i < sizeof(d); i++)
                d[i] = (uint8_t)(i * 9);
        char hex[65];
        cordon_snapshot_hex(d, hex);
        cr_assert_eq(strlen(hex), 64);
        cr_assert_eq(strncmp(hex, "000912", 6), 0);
}

Test(snapshot_manifest, new_and_finish)
{
        struct cordon_diag d = {0};
        json_t *m = NULL;
        cr_assert_eq(cordon_snapshot_manifest_new("[1]", &m, &d), -EINVAL);
        cr_assert(strstr(d.message, "an array, not an object"), "%s", d.message);
        cr_assert_eq(cordon_snapshot_manifest_new("{", &m, &d), -EINVAL);
        cr_assert_eq(cordon_snapshot_manifest_new("{\"a\":1,\"a\":2}", &m, &d), -EINVAL);
        cr_assert_eq(cordon_snapshot_manifest_new("{\"profile\":\"strict\"}", &m, &d), 0);
        struct cordon_snapshot_dir dirs[] = {{"p", 3}};
        struct snapshot_tree_counts c = {.entries = 3, .files = 2, .dirs = 1, .bytes = 10};
        char *text = NULL;
        size_t len = 0;
        cr_assert_eq(cordon_snapshot_manifest_finish(m, dirs, &c, 1, 10, &text, &len, &d), -EFBIG);
        cr_assert_eq(cordon_snapshot_manifest_finish(m, dirs, &c, 1, 1 << 20, &text, &len, &d), 0);
        json_decref(m);
        cr_assert_eq(strlen(text), len);
        json_t *files = NULL;
        cr_assert_eq(cordon_snapshot_manifest_parse(text, len, 10, &files, &d), 0, "%s", d.message);
        cr_assert_eq(json_object_size(files), 0);
        json_decref(files);
        cr_assert(strstr(text, "\"extra\":{\"profile\":\"strict\"}"), "%s", text);
        cr_assert(strstr(text, "\"trees\":[{\"name\":\"p\",\"entries\":3,\"files\":2"), "%s", text);
        free(text);
}

Test(snapshot_manifest, parse_refusals)
{
        struct cordon_diag d = {0};
        json_t *files = NULL;
        const char *hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        char ok[256];
        snprintf(ok, sizeof(ok),
                 "{\"format\":\"cordon-snapshot\",\"version\":1,\"files\":{\"t/a\":\"%s\"}}", hex);
        cr_assert_eq(cordon_snapshot_manifest_parse(ok, strlen(ok), 1, &files, &d), 0, "%s",
                     d.message);
        cr_assert_str_eq(json_string_value(json_object_get(files, "t/a")), hex);
        json_decref(files);
        cr_assert_eq(cordon_snapshot_manifest_parse(ok, strlen(ok), 0, &files, &d), -E2BIG);
        static const struct {
                const char *text;
                int r;
        } bad[] = {
            {"", -EBADMSG},
            {"[]", -EBADMSG},
            {"{\"format\":\"tar\",\"version\":1,\"files\":{}}", -EBADMSG},
            {"{\"format\":\"cordon-snapshot\",\"files\":{}}", -EBADMSG},
            {"{\"format\":\"cordon-snapshot\",\"version\":\"1\",\"files\":{}}", -EBADMSG},
            {"{\"format\":\"cordon-snapshot\",\"version\":2,\"files\":{}}", -EOPNOTSUPP},
            {"{\"format\":\"cordon-snapshot\",\"version\":1,\"files\":[]}", -EBADMSG},
            {"{\"format\":\"cordon-snapshot\",\"version\":1,\"files\":{\"a\":\"00\"}}", -EBADMSG},
            {"{\"format\":\"cordon-snapshot\",\"version\":1,\"files\":{\"a\":1}}", -EBADMSG},
            {"{\"format\":\"cordon-snapshot\",\"version\":1,\"files\":{},\"files\":{}}", -EBADMSG},
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
                cr_assert_eq(cordon_snapshot_manifest_parse(bad[i].text, strlen(bad[i].text), 10,
                                                            &files, &d),
                             bad[i].r, "%s", bad[i].text);
        /* Upper-case hex is not what the writer writes. */
        char upper[256];
        snprintf(upper, sizeof(upper),
                 "{\"format\":\"cordon-snapshot\",\"version\":1,\"files\":{\"t/a\":\"%s\"}}",
                 "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF");
        cr_assert_eq(cordon_snapshot_manifest_parse(upper, strlen(upper), 1, &files, &d), -EBADMSG);
}
