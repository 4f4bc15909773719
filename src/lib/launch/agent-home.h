/* The agents' private homes on the host (policy.h's struct cordon_agent_home): made before the
 * clone, judged after the end. Supervisor side. */
#pragma once

#include <stddef.h>

#include "cordon/sandbox.h"
#include "lib/policy/policy.h"

/* Largest copy handed in or read back. */
#define CORDON_AGENT_COPY_MAX (16u << 20)

struct cordon_agent_base; /* one copy that flows back: where, what was handed, its keys */

struct cordon_agent_homes {
        char *run_dir; /* made by this launch; removed by cordon_agent_homes_clear() */
        /* The run directory, flock()ed while this run owns it: a later start removes a run
         * directory nobody holds (its supervisor was killed), as stale. */
        bool locked;
        int run_lock;
        struct cordon_agent_base *bases;
        size_t n_bases;
        char *project; /* $PROJECT of the patterns */
        /* After cordon_agent_homes_finish(): one per copy that flows back. */
        struct cordon_agent_writeback *results;
        size_t n_results;
        char **strings;  /* the results' strings */
        char ***dropped; /* the results' dropped names, one strv each */
};

/* Makes @p's agent homes under its agent_run_dir (which must not exist: a fresh directory of
 * this run's, mode 0700, locked; stale ones beside it, of runs whose supervisor was killed, are
 * removed first): for each mirrored directory a link per entry of the host's, pointing
 * where the sandbox sees it, and the private copies, each the host file (read without
 * following a link; missing: empty) with the overlay merged in. Keeps what it needs for the
 * write-back in @ret (the policy is not referenced later). 0, or -errno with @diag set;
 * @warn(@userdata, line) gets the overlays that could not be applied. */
int cordon_agent_homes_make(const struct cordon_policy *p, struct cordon_agent_homes *ret,
                            void (*warn)(void *userdata, const char *line), void *userdata,
                            struct cordon_diag *diag);

/* Once nothing of the sandbox runs: each copy's allow-listed changes merged into its host file
 * (locked, replaced by rename), the rest named; the results in @h. Then the run directory goes.
 * 0 or -ENOMEM. */
int cordon_agent_homes_finish(struct cordon_agent_homes *h);

/* Removes the run directory (if still there) and frees @h. */
void cordon_agent_homes_clear(struct cordon_agent_homes *h);
