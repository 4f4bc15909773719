/* agent-sandbox's agent folders (src/lib/profiles/agent-folder.c): the mapping of config.conf's
 * variables onto the profile model, the dump it is read back from, settings.json and agent.md;
 * the lookup order with cordon's own profiles (profiles.c); config.conf evaluated in the confined
 * child (in a fork()ed process: Criterion runs threads); and what resolve makes of an agent that
 * is not installed (lower-agents.c). Fixture in lower-fixture.h, no agent installed. */
#include <sys/wait.h>

#include "lib/profiles/agent-conf.h"
#include "lib/profiles/agent-folder.h"
#include "shared/fd-util.h"
#include "lower-fixture.h"

/* ---- the mapping ---- */

static const char conf_text[] = "# agent t\n"
                                "AGENT_CREDENTIAL_ENV_VARS=(\"T_KEY\")\n"
                                "AGENT_AUTH_MARKERS=(\"$HOME/.t/auth.json\")\n"
                                "AGENT_REQUIRED_WRITABLE_PATHS=(\n"
                                "  \"$HOME/.t\"\n"
                                ")\n"
                                "AGENT_REQUIRED_READABLE_PATHS=(\"$HOME/.t.conf\")\n"
                                "AGENT_BLOCKED_FILES=(\"$HOME/.t/T.md\")\n"
                                "AGENT_LOGIN_HINT=\"run t login\"\n";

/* A dump: one value per variable, each a NULL-terminated list (NULL: not declared). */
static struct cordon_declare_value V[_CORDON_AGENT_CONF_MAX];

static void fini(void)
{
        cordon_declare_values_clear(V, _CORDON_AGENT_CONF_MAX);
        teardown();
}

TestSuite(agent_folder, .init = setup, .fini = fini, .timeout = 60);

static void set_var(enum cordon_agent_conf_var k, ...)
{
        va_list ap;
        va_start(ap, k);
        V[k] = (struct cordon_declare_value){.present = true, .array = true};
        for (const char *e = va_arg(ap, const char *); e; e = va_arg(ap, const char *)) {
                V[k].items = reallocarray(V[k].items, V[k].n + 2, sizeof(char *));
                V[k].items[V[k].n++] = strdup(e);
                V[k].items[V[k].n] = NULL;
        }
        va_end(ap);
}

static void default_vars(void)
{
        cordon_declare_values_clear(V, _CORDON_AGENT_CONF_MAX);
        set_var(CORDON_AGENT_CONF_WRITABLE, fmt("%s/.t", home), NULL);
        set_var(CORDON_AGENT_CONF_READABLE, fmt("%s/.t.conf", home), NULL);
        set_var(CORDON_AGENT_CONF_BLOCKED, fmt("%s/.t/T.md", home), NULL);
        set_var(CORDON_AGENT_CONF_CREDENTIALS, "T_KEY", NULL);
        set_var(CORDON_AGENT_CONF_AUTH, fmt("%s/.t/auth.json", home), NULL);
        set_var(CORDON_AGENT_CONF_HINT, "run t login", NULL);
}

static int map(struct cordon_agent_profile *a, const struct cordon_agent_profile *base, char ***w)
{
        cordon_agent_profile_clear(a);
        a->name = strdup("t");
        a->note = strdup("");
        diag = (struct cordon_diag){0};
        return cordon_agent_conf_map(a, base, "f/config.conf", conf_text, home, V, w, &diag);
}

static void map_fails(const char *needle)
{
        _cleanup_(cordon_agent_profile_clear) struct cordon_agent_profile a = {0};
        _cleanup_strv_free_ char **w = NULL;
        cr_assert_eq(map(&a, NULL, &w), -EINVAL);
        cr_assert(strstr(diag.message, needle), "want '%s' in: %s", needle, diag.message);
        default_vars();
}

Test(agent_folder, maps_each_variable_with_its_line)
{
        default_vars();
        _cleanup_(cordon_agent_profile_clear) struct cordon_agent_profile a = {0};
        _cleanup_strv_free_ char **w = NULL;
        cr_assert_eq(map(&a, NULL, &w), 0, "%s", diag.message);
        cr_assert_str_eq(a.items[CORDON_PROFILE_WRITABLE].items[0].value, ".t");
        cr_assert_str_eq(a.items[CORDON_PROFILE_WRITABLE].items[0].origin,
                         "profile t (f/config.conf:4)");
        cr_assert_str_eq(a.items[CORDON_PROFILE_READONLY].items[0].value, ".t.conf");
        cr_assert_str_eq(a.items[CORDON_PROFILE_INSTRUCTIONS].items[0].value, ".t/T.md");
        cr_assert_str_eq(a.items[CORDON_PROFILE_INSTRUCTIONS].items[0].origin,
                         "profile t (f/config.conf:8)");
        cr_assert_str_eq(a.items[CORDON_PROFILE_CREDENTIAL_ENV].items[0].value, "T_KEY");
        cr_assert_str_eq(a.items[CORDON_PROFILE_AUTH_PATH].items[0].value, ".t/auth.json");
        cr_assert_str_eq(a.login_hint, "run t login");
        cr_assert_null(w);
}

Test(agent_folder, refuses_naming_file_line_variable_and_entry)
{
        default_vars();
        set_var(CORDON_AGENT_CONF_WRITABLE, "/etc/t", NULL);
        map_fails("f/config.conf:4: AGENT_REQUIRED_WRITABLE_PATHS entry '/etc/t': not below $HOME");
        set_var(CORDON_AGENT_CONF_READABLE, fmt("%s/../x", home), NULL);
        map_fails("f/config.conf:7: AGENT_REQUIRED_READABLE_PATHS entry");
        set_var(CORDON_AGENT_CONF_BLOCKED, fmt("%s/a/./b", home), NULL);
        map_fails("AGENT_BLOCKED_FILES entry");
        set_var(CORDON_AGENT_CONF_BLOCKED, home, NULL);
        map_fails("the home itself is not a file");
        set_var(CORDON_AGENT_CONF_AUTH, "relative/x", NULL);
        map_fails("AGENT_AUTH_MARKERS entry 'relative/x'");
        set_var(CORDON_AGENT_CONF_WRITABLE, fmt("%sx/y", home), NULL);
        map_fails("not below $HOME");
        set_var(CORDON_AGENT_CONF_CREDENTIALS, "A=B", NULL);
        map_fails(
            "f/config.conf:2: AGENT_CREDENTIAL_ENV_VARS entry 'A=B': expected a variable name");
        set_var(CORDON_AGENT_CONF_HINT, "log in\033[2J", NULL);
        map_fails("f/config.conf:9: AGENT_LOGIN_HINT");
        set_var(CORDON_AGENT_CONF_HINT, "run 'x' \xc2\x9b inside", NULL);
        map_fails("AGENT_LOGIN_HINT");
        char long_hint[CORDON_AGENT_HINT_MAX + 2];
        memset(long_hint, 'x', sizeof(long_hint) - 1);
        long_hint[sizeof(long_hint) - 1] = 0;
        set_var(CORDON_AGENT_CONF_HINT, long_hint, NULL);
        map_fails("at most");
}

Test(agent_folder, the_whole_home_is_left_out_with_a_warning_and_utf8_hints_pass)
{
        default_vars();
        set_var(CORDON_AGENT_CONF_WRITABLE, fmt("%s/", home), fmt("%s/.t/", home), "", NULL);
        set_var(CORDON_AGENT_CONF_HINT, "run 't' inside \xe2\x80\x94 it asks", NULL);
        _cleanup_(cordon_agent_profile_clear) struct cordon_agent_profile a = {0};
        _cleanup_strv_free_ char **w = NULL;
        cr_assert_eq(map(&a, NULL, &w), 0, "%s", diag.message);
        cr_assert_eq(a.items[CORDON_PROFILE_WRITABLE].n, 1);
        cr_assert_str_eq(a.items[CORDON_PROFILE_WRITABLE].items[0].value, ".t");
        cr_assert_eq(strv_length(w), 1);
        cr_assert(strstr(w[0], "f/config.conf:4: AGENT_REQUIRED_WRITABLE_PATHS entry"), "%s", w[0]);
        cr_assert(strstr(w[0], "whole home"), "%s", w[0]);
}

Test(agent_folder, extending_keeps_the_base_directory_read_only)
{
        default_vars();
        _cleanup_(cordon_agent_profile_clear) struct cordon_agent_profile base = {0};
        const char *text = "dir .t\nstate .t/s\nexec_config .t.json\nprivate_copy .t.json t.json\n";
        cr_assert_eq(cordon_profile_parse("t", "b", text, strlen(text), &base, &diag), 0);
        set_var(CORDON_AGENT_CONF_WRITABLE, fmt("%s/.t", home), fmt("%s/.t/cache", home),
                fmt("%s/.local/t", home), fmt("%s/.t.json", home), fmt("%s/.t/s", home), NULL);
        _cleanup_(cordon_agent_profile_clear) struct cordon_agent_profile a = {0};
        cr_assert_eq(map(&a, &base, NULL), 0, "%s", diag.message);
        /* Its directory, its state and its copied file stay as the base keeps them (a missing
         * file would otherwise be made a directory). */
        cr_assert_eq(a.items[CORDON_PROFILE_WRITABLE].n, 2);
        cr_assert_null(cordon_list_find(&a.items[CORDON_PROFILE_WRITABLE], ".t"));
        cr_assert_not_null(cordon_list_find(&a.items[CORDON_PROFILE_WRITABLE], ".t/cache"));
        cr_assert_not_null(cordon_list_find(&a.items[CORDON_PROFILE_WRITABLE], ".local/t"));
}

Test(agent_folder, item_limit)
{
        cordon_declare_values_clear(V, _CORDON_AGENT_CONF_MAX);
        V[CORDON_AGENT_CONF_WRITABLE] = (struct cordon_declare_value){.present = true};
        V[CORDON_AGENT_CONF_WRITABLE].items = calloc(CORDON_PROFILE_ITEMS_MAX + 2, sizeof(char *));
        for (unsigned i = 0; i <= CORDON_PROFILE_ITEMS_MAX; i++)
                V[CORDON_AGENT_CONF_WRITABLE].items[i] = strdup(fmt("%s/d%u", home, i));
        V[CORDON_AGENT_CONF_WRITABLE].n = CORDON_PROFILE_ITEMS_MAX + 1;
        _cleanup_(cordon_agent_profile_clear) struct cordon_agent_profile a = {0};
        cr_assert_eq(map(&a, NULL, NULL), -E2BIG);
        cordon_declare_values_clear(V, _CORDON_AGENT_CONF_MAX);
}

/* ---- the dump, settings.json, agent.md ---- */

Test(agent_folder, dump_is_read_strictly)
{
        static const char *const files[] = {"f", "g"};
        struct cordon_declare_value v[2 * _CORDON_AGENT_CONF_MAX] = {0};
        const char ok[] = "#cordon-layer 1 0\n"
                          "declare -a AGENT_REQUIRED_WRITABLE_PATHS=([0]=\"/h/.t\" [1]=\"/h/.u\")\n"
                          "declare -- AGENT_LOGIN_HINT=\"x\"\n"
                          "#cordon-layer 2 1\n"
                          "declare -- AGENT_LOGIN_HINT=\"y\"\n"
                          "#cordon-end\n";
        cr_assert_eq(cordon_agent_conf_parse_dump(files, 2, ok, strlen(ok), v, &diag), 0, "%s",
                     diag.message);
        cr_assert_eq(v[CORDON_AGENT_CONF_WRITABLE].n, 2);
        cr_assert_str_eq(v[CORDON_AGENT_CONF_HINT].items[0], "x");
        cr_assert_str_eq(v[_CORDON_AGENT_CONF_MAX + CORDON_AGENT_CONF_HINT].items[0], "y");
        cr_assert_eq(v[_CORDON_AGENT_CONF_MAX + CORDON_AGENT_CONF_WRITABLE].n, 0);
        cordon_declare_values_clear(v, 2 * _CORDON_AGENT_CONF_MAX);
        const struct {
                const char *text;
                const char *file;
        } bad[] = {
            {"", "f"},
            {"declare -- AGENT_LOGIN_HINT=\"x\"\n#cordon-end\n", "f"},
            {"#cordon-layer 1 0\ndeclare -- OTHER=\"x\"\n#cordon-end\n", "f"},
            {"#cordon-layer 1 0\n#cordon-layer 2 0\n#cordon-end\nmore\n", "g"},
            {"#cordon-layer 1 0\ndeclare -A AGENT_AUTH_MARKERS=()\n#cordon-end\n", "f"},
            {"#cordon-layer 1 0\n#cordon-end\n", "g"},
            {"#cordon-layer 2 0\n#cordon-layer 1 0\n#cordon-end\n", "f"},
            {"#cordon-layer 1 0\n#cordon-layer 2 0\n", "g"},
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                cr_assert_eq(cordon_agent_conf_parse_dump(files, 2, bad[i].text,
                                                          strlen(bad[i].text), v, &diag),
                             -EINVAL, "%zu", i);
                cr_assert(startswith(diag.message, fmt("%s: ", bad[i].file)), "%zu: %s", i,
                          diag.message);
                cordon_declare_values_clear(v, 2 * _CORDON_AGENT_CONF_MAX);
        }
}

Test(agent_folder, settings_json_reduced_to_allow_rules_and_hooks)
{
        const char *in =
            "{\"permissions\":{\"allow\":[\"WebFetch\"],\"deny\":[\"Bash\"]},"
            "\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"x\"}]}]},"
            "\"model\":\"opus\",\"env\":{\"A\":\"b\"}}";
        _cleanup_free_ char *out = NULL;
        cr_assert_eq(cordon_agent_settings_reduce("s.json", in, strlen(in), &out, &diag), 0);
        cr_assert_str_eq(out, "{\"permissions\":{\"allow\":[\"WebFetch\"]},\"hooks\":{\"Stop\":[{"
                              "\"hooks\":[{\"type\":\"command\",\"command\":\"x\"}]}]}}");
        free(out);
        out = NULL;
        cr_assert_eq(cordon_agent_settings_reduce("s.json", "{\"model\":1}", 11, &out, &diag), 0);
        cr_assert_null(out, "nothing to merge");
        const char *bad[] = {"[]",
                             "{",
                             "{\"permissions\":[]}",
                             "{\"permissions\":{\"allow\":[1]}}",
                             "{\"hooks\":{\"Stop\":{}}}",
                             "{\"hooks\":{\"Stop\":[{\"hooks\":1}]}}",
                             "{\"hooks\":{\"Stop\":[{\"hooks\":[\"x\"]}]}}",
                             "{\"a\":1,\"a\":2}"};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                cr_assert_eq(
                    cordon_agent_settings_reduce("s.json", bad[i], strlen(bad[i]), &out, &diag),
                    -EINVAL, "%s", bad[i]);
                cr_assert(startswith(diag.message, "s.json"), "%s", diag.message);
        }
        _cleanup_free_ char *big = calloc(1, CORDON_AGENT_SETTINGS_MAX + 2);
        memset(big, ' ', CORDON_AGENT_SETTINGS_MAX + 1);
        cr_assert_eq(cordon_agent_settings_reduce("s.json", big, strlen(big), &out, &diag), -E2BIG);
}

Test(agent_folder, the_install_directory_placeholder)
{
        const char *note = "# Note\nHelp: read __SANDBOX_DIR__/agents/help.md or __SANDBOX_DIR__.\n"
                           "end";
        _cleanup_free_ char *with = cordon_agent_note_resolve(note, "/usr/share/cordon");
        cr_assert_str_eq(with, "# Note\nHelp: read /usr/share/cordon/agents/help.md or "
                               "/usr/share/cordon.\nend");
        _cleanup_free_ char *without = cordon_agent_note_resolve(note, NULL);
        cr_assert_str_eq(without, "# Note\nend", "the line naming it is left out");
        _cleanup_free_ char *plain = cordon_agent_note_resolve("a\n\nb\n", NULL);
        cr_assert_str_eq(plain, "a\n\nb\n");
        for (size_t i = 0; i < cordon_builtin_profiles_count; i++) {
                _cleanup_free_ char *n =
                    cordon_agent_note_resolve(cordon_builtin_profiles[i].note, NULL);
                cr_assert_null(strstr(n, "__SANDBOX_DIR__"));
        }
}

/* ---- the lookup ---- */

static struct cordon_profile_dirs lookup_dirs(void)
{
        return (struct cordon_profile_dirs){
            .user_dir = in_root("home/.config/cordon/profiles"),
            .admin_dir = in_root("admin"),
            .agent_dirs = {in_root("home/.config/cordon/agents"),
                           in_root("home/.config/agent-sandbox/agents")},
            .home = home,
            .help_dir = "/help",
        };
}

Test(agent_folder, a_folder_extends_the_builtin_profile)
{
        const char *f = in_root("home/.config/agent-sandbox/agents/claude");
        write_file(fmt("%s/config.conf", f), "# nothing set: no code to run\n");
        write_file(fmt("%s/agent.md", f), "MINE\nsee __SANDBOX_DIR__/agents/sandbox-help.md\n");
        write_file(fmt("%s/overlay.sh", f), "touch /tmp/never\n");
        write_file(fmt("%s/settings.json", f), "{\"permissions\":{\"allow\":[\"WebFetch\"]}}");
        struct cordon_profile_dirs dirs = lookup_dirs();
        _cleanup_(cordon_agent_profile_clear) struct cordon_agent_profile a = {0};
        _cleanup_strv_free_ char **w = NULL;
        cr_assert_eq(cordon_profile_load("claude", &dirs, &a, &w, &diag), 0, "%s", diag.message);
        cr_assert_not_null(cordon_list_find(&a.items[CORDON_PROFILE_DIR], ".claude"),
                           "the built-in profile's entries stay");
        cr_assert_not_null(
            cordon_list_find(&a.items[CORDON_PROFILE_CONFIG_DIR_VAR], "CLAUDE_CONFIG_DIR=.claude"));
        cr_assert_str_eq(a.note, "MINE\nsee /help/agents/sandbox-help.md\n");
        cr_assert_str_eq(a.settings, "{\"permissions\":{\"allow\":[\"WebFetch\"]}}");
        cr_assert_str_eq(a.settings_file, fmt("%s/settings.json", f));
        cr_assert_eq(strv_length(w), 1, "one line: overlay.sh");
        cr_assert(strstr(w[0], fmt("%s/overlay.sh is not run", f)), "%s", w[0]);
        cr_assert(strstr(w[0], "CLAUDE_CONFIG_DIR"), "%s", w[0]);
        cr_assert_not(exists("/tmp/never"));
}

Test(agent_folder, lookup_order)
{
        struct cordon_profile_dirs dirs = lookup_dirs();
        /* cordon's agents directory before agent-sandbox's, as a whole. */
        write_file(in_root("home/.config/agent-sandbox/agents/codex/agent.md"), "LEGACY\n");
        write_file(in_root("home/.config/cordon/agents/codex/agent.md"), "OWN\n");
        _cleanup_(cordon_agent_profile_clear) struct cordon_agent_profile a = {0};
        _cleanup_strv_free_ char **w = NULL;
        cr_assert_eq(cordon_profile_load("codex", &dirs, &a, &w, &diag), 0, "%s", diag.message);
        cr_assert_str_eq(a.note, "OWN\n");
        cordon_agent_profile_clear(&a);
        /* The admin's profile is a base the folder extends too. */
        write_file(in_root("admin/codex/profile"), "dir .adm\n");
        cr_assert_eq(cordon_profile_load("codex", &dirs, &a, &w, &diag), 0, "%s", diag.message);
        cr_assert_eq(a.items[CORDON_PROFILE_DIR].n, 1);
        cr_assert_str_eq(a.items[CORDON_PROFILE_DIR].items[0].value, ".adm");
        cr_assert_str_eq(a.note, "OWN\n");
        cordon_agent_profile_clear(&a);
        /* The user's profile in cordon's format wins over everything; the folder is named. */
        write_file(in_root("home/.config/cordon/profiles/codex/profile"), "dir .mine\n");
        cr_assert_eq(cordon_profile_load("codex", &dirs, &a, &w, &diag), 0, "%s", diag.message);
        cr_assert_str_eq(a.items[CORDON_PROFILE_DIR].items[0].value, ".mine");
        cr_assert_str_eq(a.note, "");
        cr_assert_eq(strv_length(w), 1);
        cr_assert(strstr(w[0], "agent folder") && strstr(w[0], "is not read"), "%s", w[0]);
        cordon_agent_profile_clear(&a);
        /* A name only a folder knows: a profile of its own, installed by its command. */
        write_file(in_root("home/.config/agent-sandbox/agents/newt/agent.md"), "N\n");
        write_file(in_root("home/.config/agent-sandbox/agents/newt/settings.json"), "{}");
        strv_free(w);
        w = NULL;
        cr_assert_eq(cordon_profile_load("newt", &dirs, &a, &w, &diag), 0, "%s", diag.message);
        cr_assert_str_eq(a.items[CORDON_PROFILE_COMMAND].items[0].value, "newt");
        cr_assert_str_eq(a.note, "N\n");
        cr_assert_eq(strv_length(w), 1);
        cr_assert(strstr(w[0], "settings.json is not used"), "%s", w[0]);
        /* Nothing anywhere: every place is named. */
        cr_assert_eq(cordon_profile_load("nosuch", &dirs, &a, NULL, &diag), -ENOENT);
        cr_assert(strstr(diag.message, "agent-sandbox/agents/nosuch"), "%s", diag.message);
        /* A settings.json that is not JSON refuses, naming it. */
        write_file(in_root("home/.config/agent-sandbox/agents/claude/settings.json"), "{");
        cr_assert_eq(cordon_profile_load("claude", &dirs, &a, NULL, &diag), -EINVAL);
        cr_assert(strstr(diag.message, "claude/settings.json:"), "%s", diag.message);
}

/* ---- config.conf evaluated ---- */

/* Runs @fn(f, @arg) in a fork()ed child (the evaluation starts a sandbox, which wants a
 * single-threaded caller), returning what it wrote to f. */
static char *in_child(void (*fn)(FILE *f, const void *arg), const void *arg)
{
        int pfd[2];
        cr_assert_eq(pipe(pfd), 0);
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                close(pfd[0]);
                FILE *f = fdopen(pfd[1], "w");
                fn(f, arg);
                fclose(f);
                _exit(0);
        }
        close(pfd[1]);
        _cleanup_free_ char *out = NULL;
        cr_assert_eq(read_full_fd(pfd[0], 1 << 20, &out, NULL), 0);
        close(pfd[0]);
        int st;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        char *ret = strdup(out);
        cr_assert_eq(strv_consume(&garbage, ret), 0);
        return ret;
}

static void print_result(FILE *f, int r, const struct cordon_diag *d, char **w)
{
        fprintf(f, "r=%d\nmsg=%s\n", r, d->message);
        STRV_FOREACH (x, w)
                fprintf(f, "warning=%s\n", *x);
        strv_free(w);
}

/* cordon_profile_load() of agent @arg: its result, message, items, hint and warnings. */
static void load_one(FILE *f, const void *arg)
{
        struct cordon_profile_dirs dirs = lookup_dirs();
        struct cordon_agent_profile a = {0};
        char **w = NULL;
        struct cordon_diag d = {0};
        int r = cordon_profile_load(arg, &dirs, &a, &w, &d);
        for (size_t k = 0; r == 0 && k < _CORDON_PROFILE_KEY_MAX; k++)
                CORDON_LIST_FOREACH (it, &a.items[k])
                        fprintf(f, "%s %s @%s\n", cordon_profile_key_name(k), it->value,
                                it->origin);
        fprintf(f, "hint=%s\n", strempty(a.login_hint));
        print_result(f, r, &d, w);
        cordon_agent_profile_clear(&a);
}

static char *load_in_child(const char *name)
{
        return in_child(load_one, name);
}

static void has(const char *text, const char *needle)
{
        cr_assert(strstr(text, needle), "missing '%s' in:\n%s", needle, text);
}

Test(agent_folder, config_conf_is_evaluated_confined)
{
        const char *f = in_root("home/.config/agent-sandbox/agents/newt");
        write_file(fmt("%s/config.conf", f), conf_text);
        const char *out = load_in_child("newt");
        has(out, "r=0\n");
        has(out, fmt("writable .t @profile newt (%s/config.conf:4)", f));
        has(out, "readonly .t.conf @");
        has(out, "instructions .t/T.md @");
        has(out, "credential_env T_KEY @");
        has(out, "auth_path .t/auth.json @");
        has(out, fmt("command newt @profile newt (%s/config.conf)", f));
        has(out, "hint=run t login\n");

        /* What it prints is a warning; it cannot write, reach the network, or leave a job. */
        write_file(fmt("%s/config.conf", f),
                   fmt("echo hello from config\n"
                       "echo planted > %s/planted 2>/dev/null\n"
                       "echo planted > /tmp/cordon-agent-folder-planted 2>/dev/null\n"
                       "(sleep 3; echo late > %s/late) &\n"
                       "AGENT_REQUIRED_WRITABLE_PATHS=(\"$HOME/.n\")\n",
                       home, home));
        out = load_in_child("newt");
        has(out, "r=0\n");
        has(out, "writable .n @");
        has(out, fmt("warning=%s/config.conf: hello from config", f));
        cr_assert_not(exists(fmt("%s/planted", home)));
        cr_assert_not(exists("/tmp/cordon-agent-folder-planted"));
        sleep(4);
        cr_assert_not(exists(fmt("%s/late", home)), "the background job died with the child");

        write_file(fmt("%s/config.conf", f), "AGENT_REQUIRED_WRITABLE_PATHS=(\n\"$HOME/x\"\n");
        out = load_in_child("newt");
        has(out, "r=-22\n");
        has(out, fmt("msg=%s/config.conf: line ", f));

        write_file(fmt("%s/config.conf", f), "\n\nAGENT_REQUIRED_READABLE_PATHS=(\"/opt/data\")\n");
        out = load_in_child("newt");
        has(out, "r=-22\n");
        has(out, fmt("msg=%s/config.conf:3: AGENT_REQUIRED_READABLE_PATHS entry '/opt/data': not "
                     "below $HOME",
                     f));

        write_file(fmt("%s/config.conf", f), "exit 0\n");
        out = load_in_child("newt");
        has(out, "r=-22\n");
        has(out, "stopped in the file");
}

/* cordon_settings_fold_profiles_in() of the agents @arg (a NULL-terminated list): each agent's
 * items and hint, the result, the warnings. */
static void fold_names(FILE *f, const void *arg)
{
        struct cordon_profile_dirs dirs = lookup_dirs();
        cordon_list_clear(&s.enabled_agents);
        for (const char *const *n = arg; *n; n++)
                cordon_list_add(&s.enabled_agents, *n, "test");
        char **w = NULL;
        struct cordon_diag d = {0};
        int r = cordon_settings_fold_profiles_in(&s, &dirs, &w, &d);
        for (size_t i = 0; i < s.n_agents; i++) {
                for (size_t k = 0; k < _CORDON_PROFILE_KEY_MAX; k++)
                        CORDON_LIST_FOREACH (it, &s.agents[i].items[k])
                                fprintf(f, "%s %s %s\n", s.agents[i].name,
                                        cordon_profile_key_name(k), it->value);
                fprintf(f, "%s hint=%s\n", s.agents[i].name, strempty(s.agents[i].login_hint));
        }
        print_result(f, r, &d, w);
}

static char *fold_in_child(const char *const *names)
{
        return in_child(fold_names, names);
}

Test(agent_folder, every_config_conf_in_one_child_each_on_its_own)
{
        const char *a = in_root("home/.config/agent-sandbox/agents/alpha");
        const char *b = in_root("home/.config/agent-sandbox/agents/beta");
        write_file(fmt("%s/config.conf", a), "echo from alpha\nAGENT_LOGIN_HINT=alpha-hint\n"
                                             "AGENT_REQUIRED_WRITABLE_PATHS=(\"$HOME/.alpha\")\n"
                                             "set -e\nSHARED=leak\n");
        write_file(fmt("%s/config.conf", b),
                   "echo from beta\n"
                   "AGENT_REQUIRED_READABLE_PATHS+=(\"$HOME/.beta${SHARED}\")\n");
        static const char *const both[] = {"alpha", "beta", NULL};
        const char *out = fold_in_child(both);
        has(out, "r=0\n");
        has(out, "alpha writable .alpha\n");
        has(out, "alpha hint=alpha-hint\n");
        has(out, "beta readonly .beta\n");
        has(out, "beta hint=\n");
        cr_assert_null(strstr(out, "beta writable"), "one file's values never reach another's");
        has(out, fmt("warning=%s/config.conf: from alpha\n", a));
        has(out, fmt("warning=%s/config.conf: from beta\n", b));
        /* One that exits early refuses, naming it, whatever the other does. */
        write_file(fmt("%s/config.conf", a), "exit 3\n");
        out = fold_in_child(both);
        has(out, "r=-22\n");
        has(out, fmt("msg=%s/config.conf: reading it stopped in the file", a));
        write_file(fmt("%s/config.conf", a), "# nothing\n");
        write_file(fmt("%s/config.conf", b), "exit 0\n");
        out = fold_in_child(both);
        has(out, fmt("msg=%s/config.conf: reading it stopped in the file", b));
}

/* ---- resolve ---- */

Test(agent_folder, login_hint_in_the_warning_and_gemini_config_dir)
{
        mkdir_p(fmt("%s/.gemini", home)); /* installed */
        cordon_list_clear(&s.enabled_agents);
        cr_assert_eq(cordon_settings_set(&s, "ENABLED_AGENTS", "gemini", "test", &diag), 0);
        cr_assert_eq(cordon_settings_set(&s, "HOME_ACCESS", "restricted", "test", &diag), 0);
        cr_assert_eq(
            cordon_settings_set(&s, "HOME_READONLY", ".gemini/oauth_creds.json", "t", &diag), 0);
        cr_assert_eq(cordon_settings_finalize(&s, NULL, &diag), 0, "%s", diag.message);
        s.agents[0].login_hint = strdup("run 'gemini' to sign in");
        _cleanup_strv_free_ char **bare = STRV_MAKE("PATH=/usr/bin:/bin");
        h.envp = bare;
        lower_ok();
        h.envp = envp;
        cr_assert(warned("agent gemini will have to log in inside the sandbox"));
        cr_assert(warned(": run 'gemini' to sign in; SUPPRESS_AGENT_WARNINGS=(gemini)"));
        cr_assert_str_eq(env_get("GEMINI_CLI_HOME"), fmt("%s/gemini", p->agent_run_dir));
        cr_assert_str_eq(env_get("GEMINI_CONFIG_DIR"), fmt("%s/gemini/.gemini", p->agent_run_dir));
}

Test(agent_folder, folder_settings_go_into_claudes_copy)
{
        mkdir_p(fmt("%s/.claude", home)); /* installed */
        write_file(fmt("%s/.config/agent-sandbox/agents/claude/settings.json", home),
                   "{\"permissions\":{\"allow\":[\"WebFetch\"]},\"hooks\":{\"Stop\":[{\"hooks\":"
                   "[{\"type\":\"command\",\"command\":\"echo done\"}]}]}}");
        lower_ok();
        const struct cordon_agent_copy *c = NULL;
        for (size_t i = 0; i < p->n_agent_homes; i++)
                for (size_t j = 0; j < p->agent_homes[i].n_copies; j++)
                        if (streq(p->agent_homes[i].agent, "claude") &&
                            streq(p->agent_homes[i].copies[j].name, "settings.json"))
                                c = &p->agent_homes[i].copies[j];
        cr_assert_not_null(c);
        cr_assert(strstr(c->overlay, "\"Bash\"") && strstr(c->overlay, "\"WebFetch\""), "%s",
                  c->overlay);
        cr_assert_str_eq(
            c->hooks,
            "{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"echo done\"}]}]}");
        /* AGENT_SETTINGS_UNTOUCHED leaves both out. */
        cr_assert_eq(cordon_settings_set(&s, "AGENT_SETTINGS_UNTOUCHED", "claude", "t", &diag), 0);
        lower_ok();
        for (size_t i = 0; i < p->n_agent_homes; i++)
                for (size_t j = 0; j < p->agent_homes[i].n_copies; j++)
                        cr_assert(!p->agent_homes[i].copies[j].hooks &&
                                  (!streq(p->agent_homes[i].agent, "claude") ||
                                   !p->agent_homes[i].copies[j].overlay));
}
