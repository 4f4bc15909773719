/* `cordon run --receipt FILE`: one JSON object saying how the command was confined (backend,
 * profile, namespaces, the Landlock and seccomp layers as applied) and how it ended. */
#pragma once

#include "lib/launch.h"
#include "lib/policy.h"

/* Writes the receipt to @fd (opened by the caller before the launch, so that a path that cannot
 * be written stops the run before it starts). @r is cordon_launch_run()'s result, @status the
 * command's exit status when @r >= 0, @diag the reason otherwise. Returns 0 or -errno. */
int receipt_write(int fd, const struct cordon_policy *p, const struct cordon_launch *l, int r,
                  int status, const struct cordon_diag *diag);
