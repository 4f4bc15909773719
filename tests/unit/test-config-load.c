/* The sandbox.conf loader (src/lib/config/config-load.c and its parts): finding the user's
 * layers in a temporary HOME, evaluation in the confined bash child, precedence, origins,
 * refusals and side effects. The admin baselines have their own file, test-config-admin.c; the
 * harness (loads in a fork()ed child: Criterion runs threads, and the ns backend's raw clone
 * wants no other thread allocating) is config-load-fixture.h. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config-load-fixture.h"

/* ---- finding the layers ---- */

Test(config, no_files_nothing_read)
{
        ok(&res, 0);
        lacks(&res, "file=");
        has(&res, "HOME_ACCESS=tmpwrite @built-in default");
}

Test(config, precedence_defaults_admin_user_confd)
{
        put_admin(admin, "HOME_ACCESS=read\nREADONLY_MOUNTS+=(/opt/admin)\nSANDBOX_QUIET=true\n");
        put(".config/cordon/user.conf", "HOME_ACCESS=restricted\nREADONLY_MOUNTS+=(/opt/user)\n");
        put(".config/cordon/conf.d/20-b.conf", "HOME_ACCESS=write\n");
        put(".config/cordon/conf.d/10-a.conf",
            "# first\nREADONLY_MOUNTS+=(\"/opt/a\")\nHOME_ACCESS=read\n");
        put(".config/cordon/conf.d/ignored.txt", "HOME_ACCESS=bogus\n");
        ok(&res, 0);
        char line[700];
        snprintf(line, sizeof(line), "HOME_ACCESS=write @%s/.config/cordon/conf.d/20-b.conf:1",
                 home);
        has(&res, line);
        snprintf(line, sizeof(line), "READONLY_MOUNTS[]=/opt/admin @%s:2", admin);
        has(&res, line);
        snprintf(line, sizeof(line), "READONLY_MOUNTS[]=/opt/user @%s/.config/cordon/user.conf:2",
                 home);
        has(&res, line);
        snprintf(line, sizeof(line),
                 "READONLY_MOUNTS[]=/opt/a @%s/.config/cordon/conf.d/10-a.conf:2", home);
        has(&res, line);
        has(&res, "READONLY_MOUNTS[]=/usr @built-in default");
        snprintf(line, sizeof(line), "file=admin %s", admin);
        has(&res, line);
        /* In order: admin, user, conf.d lexically. */
        const char *a = strstr(res.text, "file=admin"), *u = strstr(res.text, "file=user"),
                   *c1 = strstr(res.text, "10-a.conf\n"), *c2 = strstr(res.text, "20-b.conf\n");
        cr_assert(a && u && c1 && c2 && a < u && u < c1 && c1 < c2, "%s", res.text);
        lacks(&res, "ignored.txt");
        /* The admin baseline on its own. */
        has(&res, "admin_set=HOME_ACCESS");
        has(&res, "admin_set=SANDBOX_QUIET");
        lacks(&res, "admin_set=PRIVATE_TMP");
        snprintf(line, sizeof(line), "admin:\n");
        const char *adm = strstr(res.text, "admin:\n"), *all = strstr(res.text, "all:\n");
        cr_assert(adm && all);
        snprintf(line, sizeof(line), "HOME_ACCESS=read @%s:1", admin);
        const char *in_admin = strstr(adm, line);
        cr_assert(in_admin && in_admin < all, "%s", res.text);
}

Test(config, named_file_missing_is_an_error)
{
        const char *env[] = {"CORDON_CONF=/nonexistent/x.conf", NULL};
        load(&res, 0, CORDON_BACKEND_AUTO, env);
        cr_assert_eq(res.r, -ENOENT);
        has(&res, "CORDON_CONF=/nonexistent/x.conf: no such file");
        const char *env2[] = {"SANDBOX_CONF=/nonexistent/y.conf", NULL};
        load(&res, 0, CORDON_BACKEND_AUTO, env2);
        cr_assert_eq(res.r, -ENOENT);
        has(&res, "SANDBOX_CONF=/nonexistent/y.conf");
}

Test(config, named_file_replaces_the_user_file)
{
        char path[400];
        snprintf(path, sizeof(path), "%s/other.conf", root);
        put(path, "SANDBOX_QUIET=true\n");
        put(".config/cordon/sandbox.conf", "HOME_ACCESS=read\n");
        char var[500];
        snprintf(var, sizeof(var), "CORDON_CONF=%s", path);
        const char *env[] = {var, NULL};
        load(&res, 0, CORDON_BACKEND_AUTO, env);
        cr_assert_eq(res.r, 0, "%s", res.text);
        has(&res, "SANDBOX_QUIET=true @");
        has(&res, "HOME_ACCESS=tmpwrite @built-in default");
}

/* agent-sandbox's own files, copied from its documentation, read unchanged. */
Test(config, agent_sandbox_files_read_with_a_warning)
{
        put(".config/agent-sandbox/sandbox.conf",
            "READONLY_MOUNTS+=(\n"
            "\"/fh/fast/mylab/user/me\" # just your user dir — recommended\n"
            "\"/fh/fast/shared/reference_genomes\" # site-wide reference data\n"
            ")\n"
            "HOME_READONLY+=(\".config/nvim\")\n"
            "ALLOWED_ENV_VARS+=(\"GITHUB_TOKEN\" \"GH_TOKEN\")\n");
        put(".config/agent-sandbox/conf.d/genomics.conf",
            "# conf.d/genomics.conf\n"
            "[[ \"$_PROJECT_DIR\" == /fh/fast/mylab/genomics/* ]] || return 0\n"
            "READONLY_MOUNTS+=(\n\"/fh/fast/shared/reference_genomes/hg38\"\n)\n");
        put(".config/agent-sandbox/conf.d/project.conf",
            "[[ \"$_PROJECT_DIR\" == /srv/* ]] || return 0\n"
            "SANDBOX_ENV+=(\n\"PATH=/srv/bin:${PATH}\"\n\"MY_REF=/srv/ref\"\n)\n");
        ok(&res, 0);
        has(&res, "warning=reading agent-sandbox's configuration in");
        has(&res, "READONLY_MOUNTS[]=/fh/fast/mylab/user/me @");
        has(&res, "READONLY_MOUNTS[]=/fh/fast/shared/reference_genomes @");
        lacks(&res, "hg38");
        has(&res, "SANDBOX_ENV[]=PATH=/srv/bin:/usr/bin:/bin @");
        has(&res, "SANDBOX_ENV[]=MY_REF=/srv/ref @");
        has(&res, "HOME_READONLY[]=.config/nvim @");
}

Test(config, cordon_files_win_over_agent_sandbox)
{
        put(".config/agent-sandbox/sandbox.conf", "HOME_ACCESS=read\n");
        put(".config/cordon/conf.d/a.conf", "SANDBOX_QUIET=true\n");
        ok(&res, 0);
        lacks(&res, "agent-sandbox");
        has(&res, "HOME_ACCESS=tmpwrite");
}

Test(config, default_file_written_once_and_not_evaluated)
{
        ok(&res, CORDON_CONFIG_WRITE_DEFAULT | CORDON_CONFIG_ANNOUNCE_DEFAULT);
        has(&res, "warning=wrote a commented default configuration to");
        char path[400];
        snprintf(path, sizeof(path), "%s/.config/cordon/sandbox.conf", home);
        struct stat st;
        cr_assert_eq(stat(path, &st), 0);
        cr_assert_eq(st.st_mode & 0777, 0644);
        snprintf(path, sizeof(path), "%s/.config/cordon", home);
        cr_assert_eq(stat(path, &st), 0);
        cr_assert_eq(st.st_mode & 0777, 0700);
        ok(&res, CORDON_CONFIG_WRITE_DEFAULT | CORDON_CONFIG_ANNOUNCE_DEFAULT);
        lacks(&res, "warning=");
        has(&res, "file=user ");
        has(&res, "HOME_ACCESS=tmpwrite @built-in default");
        /* Without CORDON_CONFIG_ANNOUNCE_DEFAULT it is written without a line. */
        char conf[420];
        snprintf(conf, sizeof(conf), "%s/sandbox.conf", path);
        cr_assert_eq(unlink(conf), 0);
        ok(&res, CORDON_CONFIG_WRITE_DEFAULT);
        lacks(&res, "warning=");
        cr_assert_eq(stat(conf, &st), 0);
        /* Every variable is in it, and uncommenting the lot gives the defaults back. */
        _cleanup_free_ char *text = cordon_config_default_text();
        for (size_t i = 0; i < cordon_vars_count; i++) {
                char needle[128];
                snprintf(needle, sizeof(needle), "\n#%s=", cordon_vars[i].name);
                cr_assert_not_null(strstr(text, needle), "%s", needle);
        }
        cr_assert_not(cordon_config_has_code(text));
}

/* ---- user layers ---- */

Test(config, user_errors)
{
        put(".config/cordon/sandbox.conf", "HOME_ACCESS=read\nREADONLY_MOUNTS+=(\n");
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_lt(res.r, 0);
        has(&res, "sandbox.conf: line");
        has(&res, "syntax error");

        put(".config/cordon/sandbox.conf", "HOME_ACCESS=sideways\n");
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_eq(res.r, -EINVAL);
        has(&res, "sandbox.conf:1: HOME_ACCESS 'sideways': expected");

        put(".config/cordon/sandbox.conf", "PRIVATE_TMP=(false)\n");
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_eq(res.r, -EINVAL);
        has(&res, "PRIVATE_TMP must be a plain value");

        /* A variable cordon does not enforce: its error passes through, with file:line. */
        put(".config/cordon/sandbox.conf", "SANDBOX_PREFERRED_BACKENDS=(landlock)\n");
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_eq(res.r, -EOPNOTSUPP);
        has(&res, "sandbox.conf:1: SANDBOX_PREFERRED_BACKENDS 'landlock'");

        put(".config/cordon/sandbox.conf",
            "unset READONLY_MOUNTS\ndeclare -A READONLY_MOUNTS=([a]=b)\n");
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_lt(res.r, 0);
        has(&res, "associative array");
}

Test(config, confd_errors_name_the_file)
{
        put(".config/cordon/sandbox.conf", "HOME_ACCESS=read\n");
        put(".config/cordon/conf.d/10-ok.conf", "SANDBOX_QUIET=true\n");
        put(".config/cordon/conf.d/20-bad.conf", "# x\nREADONLY_MOUNTS+=(\"/a\"\nDEVICES+=(/x)\n");
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_lt(res.r, 0);
        has(&res, "conf.d/20-bad.conf: line");

        put(".config/cordon/conf.d/20-bad.conf", "DEVICES+=(relative)\n");
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_eq(res.r, -EINVAL);
        has(&res, "conf.d/20-bad.conf:1: DEVICES 'relative'");
}

/* A program cordon runs outside the sandbox is never chosen by a user's file (a sandbox with
 * ~/.config writable could have planted it): refused naming the file, the line and the
 * variable; the admin baseline may name one. */
Test(config, host_programs_only_from_the_admin)
{
        char line[700];
        put(".config/cordon/conf.d/x.conf", "# planted\nNETWORK_FILTER_HELPER=/srv/project/evil\n");
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_eq(res.r, -EPERM, "%s", res.text);
        snprintf(line, sizeof(line),
                 "msg=%s/.config/cordon/conf.d/x.conf:2: NETWORK_FILTER_HELPER names a program "
                 "cordon runs outside the sandbox",
                 home);
        has(&res, line);
        put(".config/cordon/conf.d/x.conf", "# nothing\n");
        put(".config/cordon/sandbox.conf", "NETWORK_FILTER_HELPER=/usr/bin/pasta\n");
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_eq(res.r, -EPERM, "the user's own file too: %s", res.text);
        has(&res, "sandbox.conf:1: NETWORK_FILTER_HELPER");

        /* Control: the admin baseline names it, and a user file that leaves it alone loads. */
        put(".config/cordon/sandbox.conf", "SANDBOX_QUIET=true\n");
        put_admin(admin, "NETWORK_FILTER_HELPER=/usr/bin/pasta\n");
        ok(&res, 0);
        snprintf(line, sizeof(line), "NETWORK_FILTER_HELPER=/usr/bin/pasta @%s:1", admin);
        has(&res, line);
        /* A user file changing the admin's is refused as well. */
        put(".config/cordon/user.conf", "NETWORK_FILTER_HELPER=/tmp/mine\n");
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_eq(res.r, -EPERM, "%s", res.text);
        has(&res, "user.conf:1: NETWORK_FILTER_HELPER");
}

/* A refusal leaves the settings as they were. */
static int unchanged_child(void)
{
        char h[400];
        snprintf(h, sizeof(h), "HOME=%s", home);
        char **env = STRV_MAKE(h);
        struct cordon_settings *s = NULL;
        if (cordon_settings_new(home, &s) < 0 ||
            cordon_settings_set(s, "HOME_ACCESS", "write", "--test", NULL) < 0)
                return 1;
        struct cordon_config_options o = {.envp = env};
        struct cordon_config_load_params params = {.agent_admin_path = agent_admin,
                                                   .admin_path = admin,
                                                   .admin_owner = getuid(),
                                                   .caller = getuid()};
        struct cordon_diag d = {0};
        if (cordon_config_load_with(s, &o, &params, NULL, &d) != -EINVAL)
                return 2;
        char buf[64];
        const char *origin = NULL;
        if (cordon_settings_get(s, "HOME_ACCESS", buf, sizeof(buf), &origin) < 0 ||
            strcmp(buf, "write") != 0 || strcmp(origin, "--test") != 0)
                return 3;
        for (ssize_t i = 0; i < cordon_settings_count(s, "READONLY_MOUNTS"); i++) {
                const char *v;
                cordon_settings_get_item(s, "READONLY_MOUNTS", (size_t)i, &v, NULL);
                if (strcmp(v, "/opt/new") == 0)
                        return 5;
        }
        if (cordon_settings_config_file_count(s) != 0)
                return 6;
        cordon_settings_free(s);
        return 0;
}

Test(config, refusal_leaves_the_settings_unchanged)
{
        put(".config/cordon/sandbox.conf",
            "HOME_ACCESS=read\nREADONLY_MOUNTS+=(/opt/new)\nSANDBOX_QUIET=maybe\n");
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0)
                _exit(unchanged_child());
        int st;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFEXITED(st));
        cr_assert_eq(WEXITSTATUS(st), 0, "check %d failed", WEXITSTATUS(st));
}

Test(config, user_warnings_and_unknown_names)
{
        put(".config/cordon/sandbox.conf",
            "echo hello from the config\nTYPO_MOUNTS=(/x)\nmy_helper=1\nexport NOT_OURS=1\n"
            "PATH=/x:$PATH\nSANDBOX_QUIET=true\n");
        ok(&res, 0);
        has(&res, "sandbox.conf: hello from the config");
        has(&res, "sandbox.conf:2: TYPO_MOUNTS is not a variable cordon knows");
        has(&res, "sandbox.conf:4: NOT_OURS is not a variable");
        lacks(&res, "my_helper");
        lacks(&res, "PATH is not");
        has(&res, "SANDBOX_QUIET=true @");
}

Test(config, plain_assignment_replaces_a_list)
{
        put(".config/cordon/sandbox.conf", "READONLY_MOUNTS=(/only)\nBLOCKED_FILES+=(/a /b)\n"
                                           "BLOCKED_FILES[5]=/c\n");
        ok(&res, 0);
        has(&res, "READONLY_MOUNTS[]=/only @");
        lacks(&res, "READONLY_MOUNTS[]=/usr");
        has(&res, "BLOCKED_FILES[]=/a @");
        has(&res, "BLOCKED_FILES[]=/c @");
}

/* ---- side effects stay in the child ---- */

Test(config, side_effects_contained)
{
        char marker[400], script[1200];
        snprintf(marker, sizeof(marker), "%s/written-by-config", root);
        snprintf(script, sizeof(script),
                 "echo x > %s 2>/dev/null\n"
                 "touch %s/.escaped 2>/dev/null\n"
                 "(exec 3<>/dev/tcp/127.0.0.1/22) 2>/dev/null && echo connected\n"
                 "sleep 1000 &\n"
                 "trap 'echo trapped' EXIT\n"
                 "IFS=\nset -e\nset -u\n"
                 "SANDBOX_QUIET=true\n",
                 marker, home);
        put(".config/cordon/sandbox.conf", script);
        ok(&res, 0);
        has(&res, "SANDBOX_QUIET=true @");
        lacks(&res, "connected");
        lacks(&res, "trapped");
        struct stat st;
        cr_assert_neq(stat(marker, &st), 0, "the config wrote a file");
}

Test(config, runaway_configs_refused)
{
        static const char *const bad[] = {
            "while :; do :; done\n",
            "head -c 3000000 /dev/zero | tr '\\0' x\n",
            "yes 2>&1 >&2 | head -c 200000 >&2\n",
            "declare() { :; }\nbuiltin() { :; }\n",
        };
        static const char *const why[] = {"longer than", "", "printed more than", ""};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                put(".config/cordon/sandbox.conf", bad[i]);
                load(&res, 0, CORDON_BACKEND_AUTO, NULL);
                /* A refusal, or the right values; never a hang. */
                if (res.r == 0)
                        has(&res, "HOME_ACCESS=tmpwrite");
                else
                        has(&res, why[i]);
        }
}

Test(config, redefined_declare_still_read)
{
        put(".config/cordon/sandbox.conf", "declare() { echo fake; }\nHOME_ACCESS=read\n");
        ok(&res, 0);
        has(&res, "HOME_ACCESS=read @");
}

Test(config, broken_dumps_refused)
{
        put(".config/cordon/sandbox.conf", "enable -n declare\nHOME_ACCESS=read\n");
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_eq(res.r, -EINVAL);
        has(&res, "could not read back any variable");

        put(".config/cordon/sandbox.conf", "unset SANDBOX_QUIET\n");
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_eq(res.r, -EINVAL);
        has(&res, "SANDBOX_QUIET is unset");

        /* An unset list is an empty one. */
        put(".config/cordon/sandbox.conf", "unset DEVICES\n");
        ok(&res, 0);
        lacks(&res, "DEVICES[]=");
}

/* set -x traces the file's own lines (shown as warnings), never cordon's. */
Test(config, xtrace_shows_only_the_file)
{
        put(".config/cordon/sandbox.conf", "set -x\nHOME_ACCESS=read\n");
        ok(&res, 0);
        has(&res, "HOME_ACCESS=read");
        lacks(&res, "__cordon");
        lacks(&res, "builtin");
}

Test(config, exit_in_user_file_refused)
{
        put(".config/cordon/sandbox.conf", "HOME_ACCESS=read\nexit 0\n");
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_eq(res.r, -EINVAL);
        has(&res, "reading the configuration stopped");
}

Test(config, landlock_child_same_result)
{
        put(".config/cordon/sandbox.conf", "HOME_ACCESS=read\nREADONLY_MOUNTS+=(/opt/x)\n");
        load(&res, 0, CORDON_BACKEND_LANDLOCK, NULL);
        if (res.r == -EOPNOTSUPP)
                cr_skip_test("the landlock backend cannot run here");
        cr_assert_eq(res.r, 0, "%s", res.text);
        has(&res, "HOME_ACCESS=read @");
        has(&res, "READONLY_MOUNTS[]=/opt/x @");
}

/* ---- the text scan ---- */

Test(config, scan_finds_assignments)
{
        const char *t = "# READONLY_MOUNTS=(x)\nexport A=1\ndeclare -gx B+=(2)\n  C[3]=x\n"
                        "readonly D=4\nlocal E\nA=5\n";
        /* Each name's line: line starts, after `declare -gx` and the like; after &&, ||, ;, {
         * and then/do/else on the same line; never inside quotes or a comment (0). */
        const char *u = "[ -d /x ] && F+=(/x)\ntrue || G=1; H=2\nif true; then I=1; else J=2; fi\n"
                        "for x in a; do K=1; done\n{ L=1; }\necho 'M=1; N=2' \"; O=1\" # ; P=1\n";
        static const struct {
                bool compound; /* in @u, else in @t */
                const char *name;
                unsigned line;
        } want[] = {
            {false, "A", 7}, {false, "B", 3}, {false, "C", 4},
            {false, "D", 5}, {false, "E", 0}, {false, "READONLY_MOUNTS", 0},
            {true, "F", 1},  {true, "G", 2},  {true, "H", 2},
            {true, "I", 3},  {true, "J", 3},  {true, "K", 4},
            {true, "L", 5},  {true, "M", 0},  {true, "N", 0},
            {true, "O", 0},  {true, "P", 0},
        };
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                cr_expect_eq(cordon_config_last_assignment(want[i].compound ? u : t, want[i].name),
                             want[i].line, "%s", want[i].name);
        cr_assert_not(cordon_config_has_code("# x\n\n   # y\n\t\n"));
        cr_assert(cordon_config_has_code("# x\n true\n"));
        cr_assert(cordon_config_value_substitutes("(\"/a\"\n \"$(id)\")"));
        cr_assert(cordon_config_value_substitutes("`id`"));
        cr_assert_not(cordon_config_value_substitutes("('/a$(b)' # $(c)\n \"/d\")"));
        cr_assert_not(cordon_config_value_substitutes("(/a /b) $(later)"));
}
