/* The options of sbatch, srun and salloc as Slurm 22.05 offers them to getopt_long (its
 * src/common/slurm_opt.c, common_options[] and each row's set functions), with what the checker
 * does with each. The order is Slurm's: getopt_long's prefix matching depends on it. Options
 * that exist only as environment variables (no name in Slurm's table) are not here. */
#include <stddef.h>

#include "lib/slurm/slurm-submit.h"

#define B (1u << CORDON_SLURM_SBATCH)
#define S (1u << CORDON_SLURM_SRUN)
#define L (1u << CORDON_SLURM_SALLOC)
#define A (B | S | L)

#define NO  CORDON_SLURM_ARG_NONE
#define REQ CORDON_SLURM_ARG_REQUIRED
#define OPT CORDON_SLURM_ARG_OPTIONAL

#define OK(name, sh, arg, cmds)                                                                    \
        {                                                                                          \
                name, sh, arg, cmds, CORDON_SLURM_RULE_NONE, NULL, ""                              \
        }
#define RULE(name, sh, arg, cmds, rule)                                                            \
        {                                                                                          \
                name, sh, arg, cmds, CORDON_SLURM_RULE_##rule, NULL, ""                            \
        }
#define ALIAS(name, sh, arg, cmds, same)                                                           \
        {                                                                                          \
                name, sh, arg, cmds, CORDON_SLURM_RULE_NONE, same, ""                              \
        }
#define REFUSE(name, sh, arg, cmds, why)                                                           \
        {                                                                                          \
                name, sh, arg, cmds, CORDON_SLURM_RULE_REFUSED, NULL, why                          \
        }

const struct cordon_slurm_option cordon_slurm_options[] = {
    OK("accel-bind", 0, REQ, S),
    OK("account", 'A', REQ, A),
    OK("acctg-freq", 0, REQ, A),
    OK("array", 'a', REQ, B),
    OK("batch", 0, REQ, B),
    RULE("bcast", 0, OPT, S, BCAST),
    OK("bcast-exclude", 0, REQ, S),
    OK("begin", 'b', REQ, A),
    OK("bell", 0, NO, L),
    REFUSE("bb", 0, REQ, A,
           "burst buffer directives stage files in and out of the job "
           "with the user's rights, outside the policy"),
    REFUSE("bbf", 0, REQ, A,
           "a burst buffer file is read on the submitting host and its "
           "directives stage files outside the policy"),
    OK("cluster-constraint", 0, REQ, A),
    RULE("chdir", 'D', REQ, A, CHDIR),
    OK("cluster", 0, REQ, A),
    OK("clusters", 'M', REQ, A),
    OK("comment", 0, REQ, A),
    OK("compress", 0, OPT, S),
    REFUSE("container", 0, REQ, A,
           "an OCI container bundle is a host directory the job "
           "would run from, outside the policy"),
    REFUSE("context", 0, REQ, A, "an SELinux context is the host's to choose"),
    OK("contiguous", 0, NO, A),
    OK("constraint", 'C', REQ, A),
    OK("core-spec", 'S', REQ, A),
    OK("cores-per-socket", 0, REQ, A),
    ALIAS("cpu-bind", 0, REQ, S, "cpu-bind"),
    ALIAS("cpu_bind", 0, REQ, S, "cpu-bind"),
    OK("cpu-freq", 0, REQ, A),
    OK("cpus-per-gpu", 0, REQ, A),
    OK("cpus-per-task", 'c', REQ, A),
    OK("deadline", 0, REQ, A),
    OK("debugger-test", 0, NO, S),
    OK("delay-boot", 0, REQ, A),
    /* Job ids, matched against the jobs the scope lets the session see by the chaperon. */
    OK("dependency", 'd', REQ, A),
    OK("disable-status", 'X', NO, S),
    OK("distribution", 'm', REQ, A),
    REFUSE("epilog", 0, REQ, S,
           "an epilog runs a host program on the submitting host, "
           "outside the sandbox"),
    RULE("error", 'e', REQ, B | S, STDIO),
    OK("exact", 0, NO, S),
    RULE("exclude", 'x', REQ, A, NODELIST),
    OK("exclusive", 0, OPT, A),
    RULE("export", 0, REQ, B | S, EXPORT),
    REFUSE("export-file", 0, REQ, B,
           "an export file sets the job's environment from a host "
           "file the policy's variable rules never see"),
    OK("extra-node-info", 'B', REQ, A),
    REFUSE("get-user-env", 0, OPT, B | L,
           "the user's login environment holds the variables "
           "the sandbox blocks"),
    REFUSE("gid", 0, REQ, A, "a job runs as the sandbox's user and group"),
    OK("gpu-bind", 0, REQ, A),
    OK("gpu-freq", 0, REQ, A),
    OK("gpus", 'G', REQ, A),
    OK("gpus-per-node", 0, REQ, A),
    OK("gpus-per-socket", 0, REQ, A),
    OK("gpus-per-task", 0, REQ, A),
    OK("gres", 0, REQ, A),
    OK("gres-flags", 0, REQ, A),
    OK("help", 'h', NO, A),
    ALIAS("het-group", 0, REQ, S, "het-group"),
    OK("hint", 0, REQ, A),
    OK("hold", 'H', NO, A),
    RULE("ignore-pbs", 0, NO, B, IGNORE_PBS),
    OK("immediate", 'I', OPT, S | L),
    RULE("input", 'i', REQ, B | S, STDIO),
    OK("interactive", 0, NO, S),
    /* A step in an existing job: which jobs the session may use is the scope's check. */
    OK("jobid", 0, REQ, S),
    RULE("job-name", 'J', REQ, A, JOB_NAME),
    OK("kill-command", 'K', OPT, L),
    OK("kill-on-bad-exit", 'K', OPT, S),
    OK("kill-on-invalid-dep", 0, REQ, B),
    OK("label", 'l', NO, S),
    OK("licenses", 'L', REQ, A),
    OK("mail-type", 0, REQ, A),
    REFUSE("mail-user", 0, REQ, A,
           "mail to any address is an outbound channel the "
           "sandbox's network policy does not see"),
    OK("threads", 'T', REQ, S),
    OK("mcs-label", 0, REQ, A),
    OK("mem", 0, REQ, A),
    OK("mem-bind", 0, REQ, A),
    OK("mem-per-cpu", 0, REQ, A),
    OK("mem-per-gpu", 0, REQ, A),
    OK("mincpus", 0, REQ, A),
    OK("mpi", 0, REQ, S),
    OK("msg-timeout", 0, REQ, S),
    RULE("multi-prog", 0, NO, S, MULTI_PROG),
    OK("network", 0, REQ, A),
    OK("nice", 0, OPT, A),
    OK("no-allocate", 'Z', NO, S),
    OK("no-bell", 0, NO, L),
    OK("no-kill", 'k', OPT, A),
    RULE("no-shell", 0, NO, L, NO_SHELL),
    OK("no-requeue", 0, NO, B),
    RULE("nodefile", 'F', REQ, A, READ_PATH),
    RULE("nodelist", 'w', REQ, A, NODELIST),
    OK("nodes", 'N', REQ, A),
    OK("ntasks", 'n', REQ, A),
    OK("ntasks-per-core", 0, REQ, A),
    OK("ntasks-per-gpu", 0, REQ, A),
    ALIAS("ntasks-per-node", 0, REQ, A, "ntasks-per-node"),
    OK("ntasks-per-socket", 0, REQ, A),
    OK("ntasks-per-tres", 0, REQ, A),
    /* Appending or truncating changes nothing about which file is written. */
    OK("open-mode", 0, REQ, B | S),
    RULE("output", 'o', REQ, B | S, STDIO),
    OK("overcommit", 'O', NO, A),
    OK("overlap", 0, OPT, S),
    OK("oversubscribe", 's', NO, A),
    ALIAS("pack-group", 0, REQ, S, "het-group"),
    OK("parsable", 0, NO, B),
    OK("partition", 'p', REQ, A),
    OK("power", 0, REQ, A),
    OK("prefer", 0, REQ, A),
    OK("preserve-env", 'E', NO, S),
    OK("priority", 0, REQ, A),
    OK("profile", 0, REQ, A),
    REFUSE("prolog", 0, REQ, S,
           "a prolog runs a host program on the submitting host, "
           "outside the sandbox"),
    OK("propagate", 0, OPT, B | S),
    OK("pty", 0, NO, S),
    OK("qos", 'q', REQ, A),
    OK("quiet", 'Q', NO, A),
    OK("quit-on-interrupt", 0, NO, S),
    OK("reboot", 0, NO, A),
    OK("relative", 'r', REQ, S),
    OK("requeue", 0, NO, B),
    OK("reservation", 0, REQ, A),
    OK("resv-ports", 0, OPT, S),
    OK("send-libs", 0, OPT, S),
    OK("signal", 0, REQ, A),
    OK("slurmd-debug", 0, REQ, S),
    OK("sockets-per-node", 0, REQ, A),
    OK("spread-job", 0, NO, A),
    OK("switches", 0, REQ, A),
    REFUSE("task-epilog", 0, REQ, S,
           "a task epilog is a program the policy does not "
           "confine, run for every task"),
    REFUSE("task-prolog", 0, REQ, S,
           "a task prolog is a program the policy does not "
           "confine, run for every task"),
    ALIAS("tasks-per-node", 0, REQ, A, "ntasks-per-node"),
    OK("test-only", 0, NO, B | S),
    OK("thread-spec", 0, REQ, A),
    OK("threads-per-core", 0, REQ, A),
    OK("time", 't', REQ, A),
    OK("time-min", 0, REQ, A),
    OK("tmp", 0, REQ, A),
    REFUSE("uid", 0, REQ, A, "a job runs as the sandbox's user and group"),
    OK("unbuffered", 'u', NO, S),
    OK("use-min-nodes", 0, NO, A),
    OK("verbose", 'v', NO, A),
    OK("version", 'V', NO, A),
    OK("usage", 0, NO, A),
    OK("wait", 'W', NO, B),
    OK("wait-all-nodes", 0, REQ, B | L),
    OK("wait", 'W', REQ, S),
    OK("wckey", 0, REQ, A),
    OK("whole", 0, NO, S),
    RULE("wrap", 0, REQ, B, WRAP),
    /* X11 forwarding connects the job to the user's display, a channel out of the
     * sandbox. (Slurm built without X11 leaves the name to a SPANK plugin: then our
     * refusal is only stricter.) */
    REFUSE("x11", 0, OPT, S | L, "X11 forwarding opens the user's display to the job"),
    {NULL, 0, NO, 0, CORDON_SLURM_RULE_NONE, NULL, ""},
};

const char *cordon_slurm_command_name(enum cordon_slurm_command c)
{
        static const char *const names[_CORDON_SLURM_COMMAND_MAX] = {
            [CORDON_SLURM_SBATCH] = "sbatch",
            [CORDON_SLURM_SRUN] = "srun",
            [CORDON_SLURM_SALLOC] = "salloc",
        };
        return (unsigned)c < _CORDON_SLURM_COMMAND_MAX ? names[c] : "?";
}
