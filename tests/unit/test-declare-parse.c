/* The parser of bash's `declare -p` output (src/lib/config/declare-parse.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/config/declare-parse.h"

static const char *const names[] = {"A", "B", "C"};

static int parse(const char *text, struct cordon_declare_value v[3])
{
        memset(v, 0, 3 * sizeof(*v));
        size_t pos = 0;
        struct cordon_diag d = {0};
        return cordon_declare_parse(text, strlen(text), &pos, names, 3, v, &d);
}

Test(declare_parse, forms)
{
        struct cordon_declare_value v[3];
        cr_assert_eq(parse("declare -- A=\"x \\\"y\\\" \\$z \\\\ \\`\"\n"
                           "declare -a B=([0]=\"p q\" [3]=$'n\\nl' [7]=\"\")\n"
                           "declare -ir C=\"5\"\n",
                           v),
                     0);
        cr_assert(v[0].present && !v[0].array && v[0].n == 1);
        cr_assert_str_eq(v[0].items[0], "x \"y\" $z \\ `");
        cr_assert(v[1].array && v[1].n == 3);
        cr_assert_str_eq(v[1].items[0], "p q");
        cr_assert_str_eq(v[1].items[1], "n\nl");
        cr_assert_str_eq(v[1].items[2], "");
        cr_assert_str_eq(v[2].items[0], "5");
        cordon_declare_values_clear(v, 3);

        cr_assert_eq(parse("declare -a A\ndeclare -- B\ndeclare -a C=()\n", v), 0);
        cr_assert(v[0].present && v[0].array && v[0].n == 0);
        cr_assert(v[1].present && !v[1].array && v[1].n == 0);
        cr_assert(v[2].present && v[2].array && v[2].n == 0);
        cordon_declare_values_clear(v, 3);

        cr_assert_eq(
            parse("declare -- A=$'\\001\\E\\177\\303\\251 \\'q\\377\\a\\b\\f\\v\\r\\\\\\x41\\cA'\n",
                  v),
            0);
        cr_assert_str_eq(v[0].items[0], "\001\033\177\303\251 'q\377\a\b\f\v\r\\A\001");
        cordon_declare_values_clear(v, 3);
}

Test(declare_parse, refusals)
{
        static const char *const bad[] = {
            "declare -A A=([x]=\"y\")\n",               /* associative */
            "declare -n A=\"B\"\n",                     /* nameref */
            "declare -- D=\"x\"\n",                     /* not asked for */
            "declare -- A=\"x\"\ndeclare -- A=\"y\"\n", /* twice */
            "declare -- A=x\n",                         /* unquoted */
            "declare -- A=\"\\n\"\n",                   /* escape bash does not print */
            "declare -- A=$'\\000'\n",                  /* NUL */
            "declare -- A=$'\\u00e9'\n",                /* \\u */
            "declare -a A=([1]=\"a\" [0]=\"b\")\n",     /* out of order */
            "declare -- A=\"x\" trailing\n",
            "A=1\n",
            "declare -- A=\"unterminated\n",
            "declare -a A=\"x\"\n",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct cordon_declare_value v[3];
                cr_assert_eq(parse(bad[i], v), -EINVAL, "%s accepted", bad[i]);
                cordon_declare_values_clear(v, 3);
        }
}

Test(declare_parse, limits)
{
        size_t n = 70 * 1024;
        char *big = malloc(n + 32);
        strcpy(big, "declare -- A=\"");
        memset(big + strlen(big), 'x', n);
        strcpy(big + 14 + n, "\"\n");
        struct cordon_declare_value v[3];
        cr_assert_eq(parse(big, v), -EINVAL);
        cordon_declare_values_clear(v, 3);
        free(big);

        /* 4097 elements */
        size_t cap = 4097 * 16 + 64, len = 0;
        char *arr = malloc(cap);
        len += (size_t)sprintf(arr, "declare -a B=(");
        for (int i = 0; i < 4097; i++)
                len += (size_t)sprintf(arr + len, "%s[%d]=\"x\"", i ? " " : "", i);
        strcpy(arr + len, ")\n");
        cr_assert_eq(parse(arr, v), -EINVAL);
        cordon_declare_values_clear(v, 3);
        free(arr);
}

/* What bash itself prints for tricky values parses back to them. */
Test(declare_parse, real_bash_output)
{
        char path[] = "/tmp/cordon-test-declare-XXXXXX";
        int fd = mkstemp(path);
        cr_assert_geq(fd, 0);
        FILE *s = fdopen(fd, "w");
        fputs("A=$'\\x01\\x1b\\x7f\\xc3\\xa9 \\047q\\xff\\t\\n\"$`\\\\'\n"
              "B=(\"p q\" $'n\\nl' \"a'b\" \"\" \"\\$x\\\"\\\\\\`\")\nB[9]=nine\n"
              "declare -i C=42\ndeclare -p A B C\n",
              s);
        fclose(s);
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "env -i /bin/bash --noprofile --norc %s", path);
        FILE *f = popen(cmd, "r");
        cr_assert_not_null(f);
        char buf[4096];
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = 0;
        cr_assert_eq(pclose(f), 0, "%s", buf);
        unlink(path);
        struct cordon_declare_value v[3];
        cr_assert_eq(parse(buf, v), 0, "%s", buf);
        cr_assert_str_eq(v[0].items[0], "\001\033\177\303\251 'q\377\t\n\"$`\\");
        cr_assert_eq(v[1].n, 6);
        cr_assert_str_eq(v[1].items[0], "p q");
        cr_assert_str_eq(v[1].items[1], "n\nl");
        cr_assert_str_eq(v[1].items[2], "a'b");
        cr_assert_str_eq(v[1].items[3], "");
        cr_assert_str_eq(v[1].items[4], "$x\"\\`");
        cr_assert_str_eq(v[1].items[5], "nine");
        cr_assert_str_eq(v[2].items[0], "42");
        cordon_declare_values_clear(v, 3);
}
