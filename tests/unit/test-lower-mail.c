/* NETWORK_MAIL_BLOCK (lower-mail.c): the stub over every mailer the host has, the directory of
 * stubs first on PATH, the plan text, the landlock backend's refusal, and the stub itself run in
 * an ns sandbox. Fixture in lower-fixture.h. */
#include "lower-fixture.h"

#include <sys/wait.h>

#include "cordon/sandbox.h"
#include "lib/launch/launch.h"
#include "lib/launch/mail-shadow.h"
#include "lib/mech/landlock.h"
#include "lib/launch/plan-describe.h"
#include "lib/resolve/lower-internal.h"
#include "shared/fd-util.h"

TestSuite(lower_mail, .init = setup, .fini = teardown);

#define STUB_DIR CORDON_MAIL_STUB_DIR
#define ORIGIN   "NETWORK_MAIL_BLOCK"

static size_t count_origin(const char *origin)
{
        size_t n = 0;
        for (size_t i = 0; i < p->n_fs; i++)
                n += streq(p->fs[i].origin, origin);
        return n;
}

Test(lower_mail, auto_with_open_mode_changes_nothing)
{
        cr_assert_eq(s.mail_block, CORDON_MAIL_BLOCK_AUTO);
        s.net_mode = CORDON_NET_OPEN;
        lower_ok();
        cr_assert_not(p->mail_stub);
        cr_assert_eq(count_origin(ORIGIN), 0);
        cr_assert_str_eq(env_get("PATH"), "/usr/bin:/bin");
        cr_assert_eq(other_warnings(), 0, "only the line of what was created");
}

Test(lower_mail, auto_is_on_unless_the_mode_is_open)
{
        cr_assert_eq(s.mail_block, CORDON_MAIL_BLOCK_AUTO);
        for (int m = CORDON_NET_FILTERED; m <= CORDON_NET_ISOLATED; m++) {
                s.net_mode = (enum cordon_net_mode)m;
                lower_ok();
                cr_assert(p->mail_stub, "%s", cordon_net_mode_to_string(s.net_mode));
                cr_assert_not(p->mail_stub_required);
                p = cordon_policy_free(p);
                warnings = strv_free(warnings);
        }
}

Test(lower_mail, auto_leaves_the_landlock_backend_to_the_launch_and_on_requires_it)
{
        s.backend = CORDON_BACKEND_LANDLOCK;
        lower_ok();
        cr_assert(p->mail_stub, "auto: the launch gives the landlock backend its PATH stubs");
        cr_assert_not(p->mail_stub_required);
        cr_assert_eq(count_origin(ORIGIN), 0, "no mounts for the landlock backend");
        cr_assert_str_eq(env_get("PATH"), "/usr/bin:/bin", "the launch puts its own first");
        p = cordon_policy_free(p);
        warnings = strv_free(warnings);
        s.mail_block = CORDON_MAIL_BLOCK_ON;
        lower_ok();
        cr_assert(p->mail_stub);
        cr_assert(p->mail_stub_required, "on: the launch refuses a backend without the stub");
}

Test(lower_mail, stub_directory_first_on_path)
{
        s.mail_block = CORDON_MAIL_BLOCK_ON;
        lower_ok();
        cr_assert(p->mail_stub);
        cr_assert_str_eq(env_get("PATH"), STUB_DIR ":/usr/bin:/bin");

        const char *const *names = cordon_mail_names();
        const struct cordon_fs_rule *stub =
            rule(fmt("%s/%s", STUB_DIR, names[0]), CORDON_ACCESS_DATA);
        cr_assert_not_null(stub);
        cr_assert_str_eq(stub->host, cordon_mail_stub_script(false));
        cr_assert_str_eq(stub->origin, ORIGIN);
        cr_assert(stub->flags & CORDON_FS_EXEC, "the stub is a program");
        for (const char *const *n = names + 1; *n; n++) {
                const struct cordon_fs_rule *link =
                    rule(fmt("%s/%s", STUB_DIR, *n), CORDON_ACCESS_SYMLINK);
                cr_assert_not_null(link, "no stub named %s", *n);
                cr_assert_str_eq(link->host, names[0]);
                cr_assert_str_eq(link->origin, ORIGIN);
        }
        /* Every other rule of the stub is over a mailer this host has. */
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *r = &p->fs[i];
                if (!streq(r->origin, ORIGIN) || path_is_below(r->guest, STUB_DIR))
                        continue;
                struct stat st;
                cr_assert_eq(r->access, CORDON_ACCESS_DATA);
                cr_assert(r->flags & CORDON_FS_EXEC);
                cr_assert(lstat(r->guest, &st) == 0 && S_ISREG(st.st_mode), "%s", r->guest);
        }
        for (const char *const *m = cordon_mail_paths(); *m; m++)
                cr_assert(path_is_absolute(*m));
}

Test(lower_mail, path_default_and_no_second_copy)
{
        s.mail_block = CORDON_MAIL_BLOCK_ON;
        envp = strv_free(envp);
        envp = STRV_MAKE("TERM=xterm");
        h.envp = envp;
        lower_ok();
        cr_assert_str_eq(env_get("PATH"), STUB_DIR ":/usr/local/bin:/usr/bin:/bin",
                         "without a PATH, the lookup's default follows the stubs");

        /* A sandbox started inside one: the directory is first already. */
        envp = strv_free(envp);
        envp = STRV_MAKE("PATH=" STUB_DIR ":/usr/bin");
        h.envp = envp;
        lower_ok();
        cr_assert_str_eq(env_get("PATH"), STUB_DIR ":/usr/bin");
}

Test(lower_mail, no_stub_directory_under_a_host_bind)
{
        struct stat st;
        if (lstat("/run", &st) < 0 || !S_ISDIR(st.st_mode))
                cr_skip_test("no /run here");
        s.mail_block = CORDON_MAIL_BLOCK_ON;
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, "/run", "--ro"), 0);
        lower_ok();
        cr_assert(p->mail_stub, "the mailers keep their stub");
        cr_assert_null(rule(STUB_DIR "/sendmail", CORDON_ACCESS_DATA));
        cr_assert(warned("is taken by a rule from --ro"));
        cr_assert_str_eq(env_get("PATH"), "/usr/bin:/bin");
}

/* A host of its own under the scratch root: its usr and etc bound at the same place. */
Test(lower_mail, mailers_followed_to_the_program)
{
        write_file(in_root("usr/sbin/sendmail"), "#!/bin/sh\n");
        write_file(in_root("usr/bin/bsd-mailx"), "#!/bin/sh\n");
        write_file(in_root("usr/bin/busybox"), "#!/bin/sh\n");
        write_file(in_root("usr/bin/mutt"), "#!/bin/sh\n");
        write_file(in_root("usr/bin/swaks"), "#!/bin/sh\n");
        write_file(in_root("hidden/msmtp"), "#!/bin/sh\n");
        mkdir_p(in_root("etc/alternatives"));
        mkdir_p(in_root("usr/lib"));
        /* The alternatives system: mail -> /etc/alternatives/mail -> bsd-mailx. */
        cr_assert_eq(symlink(in_root("usr/bin/bsd-mailx"), in_root("etc/alternatives/mail")), 0);
        cr_assert_eq(symlink(in_root("etc/alternatives/mail"), in_root("usr/bin/mail")), 0);
        cr_assert_eq(symlink("../sbin/sendmail", in_root("usr/lib/sendmail")), 0);
        cr_assert_eq(symlink("busybox", in_root("usr/bin/ssmtp")), 0);
        cr_assert_eq(symlink(in_root("nowhere"), in_root("usr/bin/neomutt")), 0);
        cr_assert_eq(symlink(in_root("hidden/msmtp"), in_root("usr/bin/msmtp")), 0);

        const char *paths[] = {in_root("usr/sbin/sendmail"),
                               in_root("usr/lib/sendmail"),
                               in_root("usr/bin/mail"),
                               in_root("usr/bin/ssmtp"),
                               in_root("usr/bin/neomutt"),
                               in_root("usr/bin/msmtp"),
                               in_root("usr/bin/mutt"),
                               in_root("usr/bin/swaks"),
                               in_root("usr/bin/absent"),
                               in_root("usr/bin/bsd-mailx"),
                               NULL};
        const char *names[] = {"sendmail", "mail", NULL};
        p = cordon_policy_new();
        cr_assert_not_null(p);
        struct lower l = {.s = &s, .h = &h, .p = p, .diag = &diag};
        cr_assert_eq(
            cordon_lower_put(&l, in_root("usr"), in_root("usr"), CORDON_ACCESS_RO, 0, "test"), 0);
        cr_assert_eq(
            cordon_lower_put(&l, in_root("etc"), in_root("etc"), CORDON_ACCESS_RO, 0, "test"), 0);
        cr_assert_eq(
            cordon_lower_put(&l, in_root("usr/bin/swaks"), NULL, CORDON_ACCESS_MASKED, 0, "test"),
            0);
        int r = cordon_lower_mail_stub_at(&l, paths, names, in_root("stubs"));
        warnings = l.warnings;
        cr_assert_eq(r, 0, "%s", diag.message);
        cr_assert(p->mail_stub);

        /* Regular files, and the programs the links lead to, once each. */
        cr_assert_not_null(rule(in_root("usr/sbin/sendmail"), CORDON_ACCESS_DATA));
        cr_assert_not_null(rule(in_root("usr/bin/bsd-mailx"), CORDON_ACCESS_DATA));
        cr_assert_not_null(rule(in_root("usr/bin/mutt"), CORDON_ACCESS_DATA));
        /* Never over a link (a mount cannot cover one) nor at the link's own name. */
        cr_assert_null(rule(in_root("usr/bin/mail"), CORDON_ACCESS_DATA));
        cr_assert_null(rule(in_root("usr/lib/sendmail"), CORDON_ACCESS_DATA));
        /* Not over what is no mailer: a multi-call binary stays whole, with a warning. */
        cr_assert_null(rule(in_root("usr/bin/busybox"), CORDON_ACCESS_DATA));
        cr_assert(warned("which is not a mailer"));
        /* Nothing where the sandbox does not see the program, nor for a dangling link, nor
         * under a mask (the mask wins), nor for what is not installed. */
        cr_assert_null(rule(in_root("hidden/msmtp"), CORDON_ACCESS_DATA));
        cr_assert_null(rule(in_root("nowhere"), CORDON_ACCESS_DATA));
        cr_assert_null(rule(in_root("usr/bin/swaks"), CORDON_ACCESS_DATA));
        cr_assert_null(rule(in_root("usr/bin/absent"), CORDON_ACCESS_DATA));

        size_t stubs = 0;
        for (size_t i = 0; i < p->n_fs; i++)
                stubs += p->fs[i].access == CORDON_ACCESS_DATA;
        cr_assert_eq(stubs, 4, "three mailers and the stub of the directory");
        cr_assert_not_null(rule(in_root("stubs/sendmail"), CORDON_ACCESS_DATA));
        cr_assert_not_null(rule(in_root("stubs/mail"), CORDON_ACCESS_SYMLINK));
        cr_assert_str_eq(l.mail_stub_dir, in_root("stubs"));
}

Test(lower_mail, plan_shows_the_stubs)
{
        s.mail_block = CORDON_MAIL_BLOCK_ON;
        cr_assert_eq(cordon_settings_resolve(&s, &h, &p, &warnings, &diag), 0, "%s", diag.message);
        _cleanup_free_ char *text = NULL;
        int r = cordon_sandbox_plan(p, NULL, &text, &diag);
        cr_assert_eq(r, 0, "%s", diag.message);
        cr_assert_not_null(strstr(text,
                                  "data    " STUB_DIR "/sendmail <- (generated) [executable]  "
                                  "(from NETWORK_MAIL_BLOCK)"),
                           "%s", text);
        cr_assert_not_null(strstr(text, "symlink " STUB_DIR "/mail -> sendmail  (from "
                                        "NETWORK_MAIL_BLOCK)"));
}

Test(lower_mail, landlock_backend_refuses)
{
        s.mail_block = CORDON_MAIL_BLOCK_ON;
        s.backend = CORDON_BACKEND_LANDLOCK;
        cr_assert_eq(cordon_settings_resolve(&s, &h, &p, &warnings, &diag), 0, "%s", diag.message);
        _cleanup_free_ char *text = NULL;
        diag = (struct cordon_diag){0};
        int r = cordon_sandbox_plan(p, NULL, &text, &diag);
        cr_assert_eq(r, -EOPNOTSUPP, "%d (%s)", r, diag.message);
        cr_assert_not_null(strstr(diag.message, "NETWORK_MAIL_BLOCK=on cannot be enforced by "
                                                "the landlock backend"),
                           "%s", diag.message);
}

/* auto under the landlock backend: the plan says only the PATH part applies; the launch makes
 * the directory of stubs outside every writable grant, puts it first on PATH in place of the
 * ns backend's, with a read-only Landlock rule, and removes it at its end. */
Test(lower_mail, landlock_backend_gets_the_path_shadow)
{
        s.backend = CORDON_BACKEND_LANDLOCK;
        cr_assert_eq(cordon_settings_resolve(&s, &h, &p, &warnings, &diag), 0, "%s", diag.message);
        struct cordon_launch l = {.dry_run = true,
                                  .probe_landlock = fixture_landlock_abi6,
                                  .probe_seccomp = fixture_have_seccomp};
        cr_assert_eq(cordon_launch_prepare(p, &l, &diag), 0, "%s", diag.message);
        _cleanup_free_ char *text = NULL;
        cr_assert_eq(cordon_policy_describe(p, &l, &text), 0);
        cordon_launch_clear(&l);
        cr_assert_not_null(strstr(text, "mail: NETWORK_MAIL_BLOCK: the landlock backend has no "
                                        "mounts, so only the mailers called by name are stopped"),
                           "%s", text);
        cr_assert_not_null(strstr(text, "such as /usr/sbin/sendmail, still runs"), "%s", text);

        if (cordon_landlock_abi() < 1)
                cr_skip_test("no Landlock here to plan a launch with");
        l = (struct cordon_launch){0};
        cr_assert_eq(cordon_launch_prepare(p, &l, &diag), 0, "%s", diag.message);
        cr_assert_not_null(l.mail_dir);
        char *dir = strdup(l.mail_dir);
        cr_assert(startswith(dir, "/tmp/cordon-mail-") || startswith(dir, "/dev/shm/cordon-mail-"),
                  "%s", dir);
        struct stat st;
        cr_assert_eq(stat(fmt("%s/sendmail", dir), &st), 0);
        cr_assert_eq(st.st_mode & 07777, 0555);
        _cleanup_free_ char *stub = NULL;
        cr_assert_geq(read_full_file(fmt("%s/sendmail", dir), 1 << 20, &stub, NULL), 0);
        cr_assert_str_eq(stub, cordon_mail_stub_script(true));
        char target[64] = "";
        cr_assert_gt(readlink(fmt("%s/mail", dir), target, sizeof(target) - 1), 0);
        cr_assert_str_eq(target, "sendmail");
        const char *path = NULL;
        for (char **e = l.envp; e && *e; e++)
                if (startswith(*e, "PATH="))
                        path = *e + 5;
        cr_assert_str_eq(path, fmt("%s:/usr/bin:/bin", dir));
        bool ruled = false;
        for (size_t i = 0; i < l.ll.n_rules; i++)
                if (streq(l.ll.rules[i].path, dir))
                        ruled = l.ll.rules[i].access == CORDON_LANDLOCK_FS_READ;
        cr_assert(ruled, "a read-only rule of its own");
        cordon_launch_clear(&l);
        cr_assert_neq(stat(dir, &st), 0, "removed at the launch's end");
        free(dir);
}

/* The launch's PATH: the ns backend's directory of stubs replaced, the lookup's default when
 * there is none. */
Test(lower_mail, shadow_path)
{
        char dir[] = "/tmp/cordon-mail-x", with_stubs[] = "PATH=" STUB_DIR ":/usr/bin",
             term[] = "TERM=x";
        struct cordon_launch l = {.mail_dir = dir};
        char *var = NULL;
        cr_assert_eq(cordon_mail_shadow_path(&l, (char *[]){with_stubs, NULL}, &var), 0);
        cr_assert_str_eq(var, "PATH=/tmp/cordon-mail-x:/usr/bin");
        free(var);
        cr_assert_eq(cordon_mail_shadow_path(&l, (char *[]){term, NULL}, &var), 0);
        cr_assert_str_eq(var, "PATH=/tmp/cordon-mail-x:/usr/local/bin:/usr/bin:/bin");
        free(var);
        l.mail_dir = NULL;
        cr_assert_eq(cordon_mail_shadow_path(&l, NULL, &var), 0);
        cr_assert_null(var);
}

/* Runs @script with sh in an ns sandbox of the fixture's policy, in a fork()ed child
 * (Criterion's threads and a user namespace do not mix); its stderr goes to @err. Returns the
 * command's status, or -1 when the sandbox could not start, -2 when there are no user
 * namespaces. */
static int run_inside(const char *script, const char *err)
{
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                if (fd < 0 || dup2(fd, 2) < 0)
                        _exit(250);
                char sh[] = "sh", c[] = "-c";
                char *cmd = strdup(script);
                char *argv[] = {sh, c, cmd, NULL};
                int status = 0;
                struct cordon_diag d = {0};
                if (cordon_policy_set_backend(p, CORDON_BACKEND_NS) < 0)
                        _exit(251);
                int k = cordon_spawn(p, argv, &status, &d);
                if (k < 0)
                        dprintf(2, "cordon_spawn: %d %s\n", k, d.message);
                _exit(k == -EPERM || k == -EOPNOTSUPP ? 254 : k < 0 ? 255 : status);
        }
        int ws;
        cr_assert_eq(waitpid(pid, &ws, 0), pid);
        cr_assert(WIFEXITED(ws));
        int code = WEXITSTATUS(ws);
        return code == 255 ? -1 : code == 254 ? -2 : code;
}

static char *slurp(const char *path)
{
        char *text = NULL;
        cr_assert_geq(read_full_file(path, 1 << 20, &text, NULL), 0);
        return text;
}

Test(lower_mail, stub_runs_in_a_sandbox, .timeout = 60)
{
        s.mail_block = CORDON_MAIL_BLOCK_ON;
        lower_ok();
        const char *err = fmt("%s/err", root);

        int rc = run_inside("exec sendmail -t 'secret recipient'", err);
        _cleanup_free_ char *text = slurp(err);
        if (rc == -2)
                cr_skip_test("user namespaces are unavailable here: %s", text);
        cr_assert_eq(rc, 77, "status %d, stderr: %s", rc, text);
        cr_assert(startswith(text, "cordon: mail is disabled by the configuration of this sandbox "
                                   "(NETWORK_MAIL_BLOCK): sendmail was called with 2 arguments "
                                   "and sent nothing.\n"),
                  "%s", text);
        cr_assert_null(strstr(text, "secret"), "never an argument: %s", text);
        /* A boundary, the other ways closed, what to do instead. */
        static const char *const says[] = {"not a fault", "by name or at its usual path",
                                           "SMTP ports", "must not retry", "Tell the user"};
        for (size_t i = 0; i < ELEMENTSOF(says); i++)
                cr_assert_not_null(strstr(text, says[i]), "no '%s': %s", says[i], text);

        /* A hostile name: only its printable bytes come out. */
        rc =
            run_inside("ln -s " STUB_DIR "/sendmail \"$(printf '/tmp/a\\033]0;x\\007\\r\\nb')\" && "
                       "\"$(printf '/tmp/a\\033]0;x\\007\\r\\nb')\" one",
                       err);
        free(text);
        text = slurp(err);
        cr_assert_eq(rc, 77, "status %d, stderr: %s", rc, text);
        cr_assert(startswith(text, "cordon: mail is disabled by the configuration of this sandbox "
                                   "(NETWORK_MAIL_BLOCK): a]0;xb was called with 1 arguments "
                                   "and sent nothing.\n"),
                  "%s", text);
        for (const char *c = text; *c; c++)
                cr_assert(*c == '\n' || (*c >= ' ' && *c <= '~'), "an unprintable byte: %s", text);

        /* A name of any length: at most 64 bytes of it. */
        rc = run_inside("n=/tmp/$(printf 'm%.0s' $(seq 200)) && ln -s " STUB_DIR
                        "/sendmail \"$n\" && "
                        "\"$n\"",
                        err);
        free(text);
        text = slurp(err);
        cr_assert_eq(rc, 77, "status %d, stderr: %s", rc, text);
        cr_assert_not_null(
            strstr(text, "): mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm "
                         "was called with 0 arguments"),
            "%s", text);

        /* Read-only and a program for everyone. */
        rc = run_inside("stat -c %a " STUB_DIR "/sendmail >&2; : > " STUB_DIR "/sendmail", err);
        free(text);
        text = slurp(err);
        cr_assert_neq(rc, 0);
        cr_assert(strncmp(text, "555\n", 4) == 0, "%s", text);
        cr_assert_not_null(strstr(text, "Read-only file system"), "%s", text);
}
