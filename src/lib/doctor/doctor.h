/* The internal side of the host checks: the public report and checks are in cordon/doctor.h;
 * here what only the library and its tests use. */
#pragma once

#include <stdbool.h>

#include "cordon/doctor.h"
#include "lib/launch/net-decide.h"
#include "lib/mech/res-limits.h"

/* cordon_doctor_check_limits() with the cgroup facts read from @host (tests); NULL for the real
 * host. Fails only with -ENOMEM; any other failure of the probe is recorded in ret->error. */
int cordon_doctor_check_limits_at(const struct cordon_limits_host *host,
                                  struct cordon_doctor_limits *ret);

/* The same in @cgroup_path (CGROUP_PATH; NULL: none, what a plain `cordon run --memory` gets). */
int cordon_doctor_check_limits_in(const struct cordon_limits_host *host, const char *cgroup_path,
                                  struct cordon_doctor_limits *ret);

/* cordon_doctor_assess() with @probe standing in for the launch's filtered-mode probe (tests). */
int cordon_doctor_assess_with(const struct cordon_doctor_report *r, const struct cordon_settings *s,
                              cordon_net_filtered_probe probe, struct cordon_doctor_setup *ret);

/* A numeric sysctl such as /proc/sys/user/max_user_namespaces; -1 when absent or unreadable. */
long cordon_read_sysctl(const char *path);
