/* `cordon doctor`'s parts shared by its text and JSON renderings: the reason of each check in
 * words, the fix commands, and the problems found for the settings in use, each with its fix.
 * Only the public API (cordon/doctor.h). */
#pragma once

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "cordon/doctor.h"
#include "cordon/settings.h"

#define DOCTOR_LANDLOCK_BACKEND_GAPS 4
#define DOCTOR_PROBLEMS_MAX          12

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
/* Each check's reason in words, "" when there is nothing to explain. */
void doctor_userns_reason(const struct cordon_doctor_userns *u, char *buf, size_t n);
void doctor_landlock_reason(const struct cordon_doctor_landlock *l, char *buf, size_t n);
void doctor_seccomp_reason(const struct cordon_doctor_seccomp *s, char *buf, size_t n);
const char *doctor_cgroup_layout_name(enum cordon_cgroup_layout l);
/* A limit's mechanism's caveat (the fallbacks) or why it is unavailable; "" when nothing. */
void doctor_limit_note(const struct cordon_doctor_limits *l, enum cordon_limit_kind k, char *buf,
                       size_t n);
/* "memory=cgroup1 pids=unavailable cpus=affinity", the names of the `cordon: limits` banner;
 * with @only (may be NULL), the kinds it marks only. */
void doctor_limits_value(const struct cordon_doctor_limits *l, const bool *only, char *buf,
                         size_t n);
void doctor_limits_reason(const struct cordon_doctor_limits *l, const bool *only, char *buf,
                          size_t n);
extern const char *const doctor_seccomp_action_names[_CORDON_SECCOMP_ACTION_COUNT];
/* What the landlock backend cannot do on any host. */
extern const char *const doctor_landlock_backend_gaps[DOCTOR_LANDLOCK_BACKEND_GAPS];
/* "WHAT: NOTE", the gap line of an item that does not work here. */
void doctor_feature_gap(const struct cordon_doctor_ll_feature *f, char *buf, size_t n);
const char *doctor_apparmor_value(const struct cordon_doctor_apparmor *a);
void doctor_apparmor_reason(const struct cordon_doctor_apparmor *a, char *buf, size_t n);
/* The one command that installs and loads cordon's profile; "" when none is needed. */
void doctor_apparmor_fix(const struct cordon_doctor_apparmor *a, char *buf, size_t n);
/* "the value (origin)" of scalar @name, for the lines that name a setting. */
void doctor_setting(const struct cordon_settings *s, const char *name, char *buf, size_t n);

/* The problems of @v, in the order a person fixes them: the configuration, the backend, its
 * layers, the network, the limits. */
void doctor_problems_find(const struct doctor_view *v, struct doctor_problems *ret);

/* The whole report as one JSON object; NULL when out of memory. */
json_t *doctor_json_build(const struct doctor_view *v, const struct doctor_problems *pr);
