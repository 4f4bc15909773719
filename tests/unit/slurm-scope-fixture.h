/* Shared by the SLURM_SCOPE tests: one request judged, the result's argv joined with spaces,
 * and the checks of a refusal (errno, rule key, and a message naming the option and the
 * rule). */
#pragma once

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/slurm/slurm-scope.h"
#include "shared/macro.h"
#include "shared/strv.h"
#include "test-helpers.h"

#define USER "alice"
#define UID  1000u

static const uint32_t scope_ids[] = {300, 100, 200, 100};
static struct cordon_diag diag;
static const char *rule;
static struct cordon_slurm_scope_result res;
static char joined[8192];

static void scope_setup(void)
{
        diag = (struct cordon_diag){0};
        rule = NULL;
        joined[0] = 0;
}

static void scope_teardown(void)
{
        cordon_slurm_scope_result_clear(&res);
}

static int judge_s(enum cordon_slurm_query q, enum cordon_slurm_scope scope, const uint32_t *ids,
                   size_t n_ids, char **argv)
{
        cordon_slurm_scope_result_clear(&res);
        rule = NULL;
        diag = (struct cordon_diag){0};
        joined[0] = 0;
        struct cordon_slurm_scope_request req = {
            .command = q,
            .argv = argv,
            .scope = scope,
            .user = USER,
            .uid = UID,
            .ids = ids,
            .n_ids = n_ids,
        };
        int r = cordon_slurm_scope_check(&req, &res, &rule, &diag);
        if (r >= 0) {
                size_t n = 0;
                for (char **a = res.argv; *a && n < sizeof(joined); a++)
                        n += (size_t)snprintf(joined + n, sizeof(joined) - n, "%s%s",
                                              a == res.argv ? "" : " ", *a);
        } else
                cr_assert_null(res.argv);
        strv_free(argv);
        return r;
}

/* In session scope with the jobs 100, 200, 300 */
#define SESSION(q, ...)                                                                            \
        judge_s(q, CORDON_SLURM_SCOPE_SESSION, scope_ids, ELEMENTSOF(scope_ids),                   \
                STRV_MAKE(__VA_ARGS__))
#define PROJECT(q, ...)                                                                            \
        judge_s(q, CORDON_SLURM_SCOPE_PROJECT, scope_ids, ELEMENTSOF(scope_ids),                   \
                STRV_MAKE(__VA_ARGS__))
/* In session scope with no job yet */
#define EMPTY(q, ...) judge_s(q, CORDON_SLURM_SCOPE_SESSION, NULL, 0, STRV_MAKE(__VA_ARGS__))
#define USERS(q, ...) judge_s(q, CORDON_SLURM_SCOPE_USER, NULL, 0, STRV_MAKE(__VA_ARGS__))
#define NONE(q, ...)  judge_s(q, CORDON_SLURM_SCOPE_NONE, NULL, 0, STRV_MAKE(__VA_ARGS__))

#define EXPECT_ARGV(r, s)                                                                          \
        do {                                                                                       \
                cr_assert_eq((r), 0, "refused: %s", diag.message);                                 \
                cr_assert_str_eq(joined, (s));                                                     \
        } while (0)

/* A refusal: the errno, the rule key, and a message naming @word and the key. */
#define EXPECT_REFUSED(r, err, key, word)                                                          \
        do {                                                                                       \
                cr_assert_eq((r), (err), "got %d, argv '%s'", (r), joined);                        \
                cr_assert_not_null(rule);                                                          \
                cr_assert_str_eq(rule, (key), "rule %s: %s", rule, diag.message);                  \
                cr_assert(strstr(diag.message, "[" key "]"), "%s", diag.message);                  \
                cr_assert(strstr(diag.message, (word)), "'%s' not in: %s", (word), diag.message);  \
        } while (0)
