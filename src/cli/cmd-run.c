/* `cordon run`: defaults + flags -> settings -> policy -> spawn. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/run-options.h"
#include "lib/lower.h"
#include "lib/policy.h"
#include "shared/log.h"
#include "shared/strv.h"

extern char **environ;

int cmd_run(int argc, char **argv)
{
        struct run_args a = {0};
        char err[512] = "";
        _cleanup_free_ char *cwd = getcwd(NULL, 0);
        int r = cordon_settings_init_defaults(&a.settings, getenv("HOME"));
        if (r < 0) {
                log_error("out of memory");
                return EXIT_SETUP;
        }
        r = run_args_parse(&a, argc, argv, err, sizeof(err));
        if (r < 0 || a.help) {
                int code = a.help ? 0 : EXIT_USAGE;
                if (!a.help)
                        log_error("%s", err);
                run_args_help(a.help ? stdout : stderr);
                cordon_settings_clear(&a.settings);
                return code;
        }
        if (!cwd) {
                log_error("cannot determine the working directory: %m");
                cordon_settings_clear(&a.settings);
                return EXIT_SETUP;
        }

        struct cordon_host host = {
            .home = getenv("HOME"),
            .cwd = cwd,
            .envp = environ,
            .uid = getuid(),
            .gid = getgid(),
        };
        struct cordon_policy *p = NULL;
        _cleanup_strv_free_ char **warnings = NULL;
        struct cordon_diag diag = {0};
        r = cordon_settings_lower(&a.settings, &host, &p, &warnings, &diag);
        STRV_FOREACH (w, warnings)
                log_warning("%s", *w);
        if (r < 0) {
                log_error("%s", *diag.message ? diag.message : strerror(-r));
                cordon_settings_clear(&a.settings);
                return EXIT_SETUP;
        }

        if (!a.settings.quiet)
                fprintf(stderr,
                        "cordon: backend=ns project=%s home=%s network=%s env-blocked=%zu\n",
                        p->project_dir, cordon_home_access_to_string(p->home_access),
                        cordon_net_mode_to_string(p->net_mode), p->n_env_blocked);
        fflush(stderr);
        cordon_settings_clear(&a.settings);

        int status = 0;
        r = cordon_spawn(p, a.command, &status, &diag);
        cordon_policy_free(p);
        if (r < 0) {
                log_error("%s", diag.message);
                if (diag.step == CORDON_STEP_EXEC)
                        return r == -ENOENT ? 127 : 126;
                return EXIT_SETUP;
        }
        return status;
}
