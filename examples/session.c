/* session: one live sandbox, several commands. Starts a session for the working directory
 * (the settings' defaults, proxied network), runs three commands in it, changes its network
 * rules, snapshots it, frees it, and restores the snapshot into a new session.
 * Build: cc session.c $(pkg-config --cflags --libs libcordon)
 * SANDBOX_BACKEND=ns|landlock picks a backend (default: auto). */
#define _POSIX_C_SOURCE 200809L
#include <cordon/cordon.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;
#define W(s) ((char *)(uintptr_t)(s))

/* The policy the settings give, with NAME=VALUE pairs set over them. */
static struct cordon_policy *policy(const char *const *set)
{
        struct cordon_host host;
        struct cordon_settings *s = NULL;
        struct cordon_policy *p = NULL;
        struct cordon_diag d = {0};
        const char *backend = getenv("SANDBOX_BACKEND");
        if (cordon_host_init_current(&host, environ) < 0 || cordon_settings_new(host.home, &s) < 0)
                return NULL;
        int r = backend ? cordon_settings_set(s, "SANDBOX_BACKEND", backend, "example", &d) : 0;
        for (size_t i = 0; r >= 0 && set[i]; i += 2)
                r = cordon_settings_set(s, set[i], set[i + 1], "example", &d);
        if (r >= 0 && cordon_settings_resolve(s, &host, &p, NULL, &d) < 0)
                fprintf(stderr, "resolve: %s\n", d.message);
        cordon_settings_free(s);
        cordon_host_clear(&host);
        return p;
}

static struct cordon_sandbox *start(const char *restore)
{
        const char *const set[] = {"NETWORK_FILTER_MODE", "proxied", "SANDBOX_QUIET", "true", NULL};
        struct cordon_policy *p = policy(set);
        struct cordon_sandbox_options o = {.flags = CORDON_SANDBOX_SESSION,
                                           .restore_from = restore};
        struct cordon_sandbox *sb = NULL;
        struct cordon_diag d = {0};
        if (p && cordon_sandbox_start_with(p, NULL, &o, &sb, &d) < 0)
                fprintf(stderr, "start: %s\n", d.message);
        cordon_policy_free(p);
        return sb;
}

/* Runs `sh -c SCRIPT` in @sb, its output on ours; returns its status. */
static int sh(struct cordon_sandbox *sb, const char *script)
{
        char *argv[] = {W("sh"), W("-c"), W(script), NULL};
        struct cordon_exec_options eo = {
            .argv = argv, .flags = CORDON_EXEC_STDIO, .stdio = {0, 1, 2}, .timeout_usec = 10000000};
        struct cordon_exec *e = NULL;
        struct cordon_diag d = {0};
        int status = -1;
        fflush(stdout);
        if (cordon_sandbox_exec(sb, &eo, &e, &d) < 0)
                fprintf(stderr, "exec: %s\n", d.message);
        else if (cordon_exec_wait(e, &status) < 0)
                status = -1;
        cordon_exec_free(e);
        return status;
}

int main(void)
{
        struct cordon_sandbox *sb = start(NULL);
        if (!sb)
                return 1;
        printf("exec 1: status %d\n", sh(sb, "cd \"${TMPDIR:-/tmp}\" && echo hello > note"));
        printf("exec 2: status %d\n", sh(sb, "cat \"${TMPDIR:-/tmp}/note\""));
        printf("exec 3: status %d\n", sh(sb, "exit 3"));

        const char *const block[] = {"NETWORK_FILTER_MODE", "proxied", "NETWORK_BLOCKLIST",
                                     "example.com", NULL};
        struct cordon_policy *p = policy(block);
        struct cordon_diag d = {0};
        int r = p ? cordon_sandbox_set_network(sb, p, &d) : -1;
        cordon_policy_free(p);
        printf("network: %s\n", r < 0 ? d.message : "rules changed");

        r = cordon_sandbox_snapshot(sb, "session.tar.zst", &d);
        printf("snapshot: %s\n", r < 0 ? d.message : "written");
        cordon_sandbox_free(sb);

        sb = start("session.tar.zst");
        if (!sb)
                return 1;
        printf("restored: status %d\n", sh(sb, "cat \"${TMPDIR:-/tmp}/note\""));
        cordon_sandbox_free(sb);
        unlink("session.tar.zst");
        return 0;
}
