/* Subcommands of the cordon program. Each returns the process exit status. */
#pragma once

#define EXIT_USAGE   2
#define EXIT_SETUP   125
#define EXIT_TIMEOUT 124

int cmd_run(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_config(int argc, char **argv);

struct cordon_cap_policy;
/* Reads and parses a capability policy file ("-": standard input), at most 1 MiB, for
 * `cordon policy` and `cordon run --policy`. Logs one line and returns -errno on failure;
 * on success stores a new policy in @ret, owned by the caller (cordon_cap_policy_free()). */
int policy_file_load(const char *path, struct cordon_cap_policy **ret);
