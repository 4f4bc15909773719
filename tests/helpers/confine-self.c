/* confine-self: resolves the settings as `cordon run` would (defaults, the environment, the
 * working directory as the project; public API only), confines itself with
 * cordon_confine_self() and execs its command, as a SPANK plugin's task does
 * (tests/integration/confine-self.sh).
 * Usage: confine-self [--control] [NAME=VALUE...] -- COMMAND [ARG...]
 * SANDBOX_BACKEND=landlock is set first; NAME=VALUE settings go over it. --control resolves
 * but does not confine (the positive control). A refusal prints
 * "confine-self: ERRNAME: MESSAGE" on stderr and exits 125. */
#include <cordon/cordon.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static int fail(int r, const char *what, const struct cordon_diag *d)
{
        const char *name = strerrorname_np(-r);
        fprintf(stderr, "confine-self: %s: %s%s%s\n", name ? name : "?", what,
                *d->message ? ": " : "", d->message);
        return 125;
}

int main(int argc, char **argv)
{
        struct cordon_host host;
        struct cordon_settings *s = NULL;
        struct cordon_policy *p = NULL;
        struct cordon_diag d = {0};
        bool control = false;
        int i = 1, r;

        if (i < argc && strcmp(argv[i], "--control") == 0) {
                control = true;
                i++;
        }
        if ((r = cordon_host_init_current(&host, environ)) < 0 ||
            (r = cordon_settings_new(host.home, &s)) < 0)
                return fail(r, "settings", &d);
        /* The environment's settings first (as `cordon run` reads them), then ours. */
        if ((r = cordon_settings_apply_environment(s, environ, &d)) < 0)
                return fail(r, "environment", &d);
        if ((r = cordon_settings_set(s, "SANDBOX_BACKEND", "landlock", "confine-self", &d)) < 0)
                return fail(r, "SANDBOX_BACKEND", &d);
        for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
                char name[128];
                const char *eq = strchr(argv[i], '=');
                if (!eq || (size_t)(eq - argv[i]) >= sizeof(name)) {
                        fprintf(stderr, "confine-self: expected NAME=VALUE: %s\n", argv[i]);
                        return 2;
                }
                memcpy(name, argv[i], (size_t)(eq - argv[i]));
                name[eq - argv[i]] = 0;
                if ((r = cordon_settings_set(s, name, eq + 1, "confine-self", &d)) < 0)
                        return fail(r, argv[i], &d);
        }
        if (i + 1 >= argc) {
                fprintf(stderr,
                        "usage: confine-self [--control] [NAME=VALUE...] -- COMMAND [ARG...]\n");
                return 2;
        }
        if ((r = cordon_settings_resolve(s, &host, &p, NULL, &d)) < 0)
                return fail(r, "resolve", &d);
        cordon_settings_free(s);
        cordon_host_clear(&host);
        if (!control) {
                r = cordon_confine_self(p, CORDON_CONFINE_ENVIRON, &d);
                if (r < 0)
                        return fail(r, "cordon_confine_self", &d);
                if (*d.message)
                        fprintf(stderr, "confine-self: warning: %s\n", d.message);
        }
        cordon_policy_free(p);
        execvp(argv[i + 1], argv + i + 1);
        fprintf(stderr, "confine-self: %s: %s\n", argv[i + 1], strerror(errno));
        return 127;
}
