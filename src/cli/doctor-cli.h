/* `cordon doctor`'s parts shared by its text and JSON renderings: the fix commands and the
 * problems found for the settings in use, each with its fix (the reason of each check in words
 * is the library's). Only the public API (cordon/doctor.h). */
#pragma once

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "cordon/doctor.h"
#include "cordon/settings.h"

#define DOCTOR_PROBLEMS_MAX 12

/* What `cordon doctor` looks at: the host's facts, the settings as `cordon run` would load them
 * and what they get here. */
struct doctor_view {
        const struct cordon_doctor_report *r;
        const struct cordon_settings *s;
        const struct cordon_doctor_setup *setup;
        char config_error[sizeof(((struct cordon_diag *)0)->message)]; /* the configuration could
                                                                          not be loaded: why; "" */
};

/* One problem: what is wrong, and the command or setting that fixes it. */
struct doctor_problem {
        char what[1024];
        char fix[3 * PATH_MAX + 256];
        bool refuses; /* `cordon run` refuses to start because of it */
};

struct doctor_problems {
        size_t n;
        struct doctor_problem p[DOCTOR_PROBLEMS_MAX];
};

const char *doctor_errno_name(int r);
/* "memory=cgroup1 pids=unavailable cpus=affinity", the names of the `cordon: limits` banner;
 * with @only (may be NULL), the kinds it marks only. */
void doctor_limits_value(const struct cordon_doctor_limits *l, const bool *only, char *buf,
                         size_t n);
/* The limits' caveats (cordon_doctor_limit_note()) joined by "; ", or why the probe failed. */
void doctor_limits_reason(const struct cordon_doctor_limits *l, const bool *only, char *buf,
                          size_t n);
/* "WHAT: NOTE", the gap line of an item that does not work here (as in the library's JSON). */
void doctor_feature_gap(const struct cordon_doctor_ll_feature *f, char *buf, size_t n);
const char *doctor_apparmor_value(const struct cordon_doctor_apparmor *a);
/* "the value (origin)" of scalar @name, for the lines that name a setting. */
void doctor_setting(const struct cordon_settings *s, const char *name, char *buf, size_t n);

/* The problems of @v, in the order a person fixes them: the configuration, the backend, its
 * layers, the network, the limits. */
void doctor_problems_find(const struct doctor_view *v, struct doctor_problems *ret);

/* The whole report as one JSON object: the library's (cordon_doctor_to_json()) with the
 * problems added under "problems"; NULL when out of memory. */
json_t *doctor_json_build(const struct doctor_view *v, const struct doctor_problems *pr);
