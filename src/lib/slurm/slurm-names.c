/* The Slurm commands that are cordon's stub inside a sandbox (slurm-names.h). */
#include <stddef.h>

#include "lib/slurm/slurm-names.h"

static const char *const names[] = {
    "sbatch", "srun",  "salloc", "squeue", "scancel",  "scontrol", "sstat",
    "sacct",  "sinfo", "sprio",  "sshare", "sacctmgr", NULL,
};

const char *const *cordon_slurm_command_names(void)
{
        return names;
}
