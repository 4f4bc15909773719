/* Unit tests for src/serve/client-args.c: cordon-session's command line (each command's options
 * and operands, every refusal and its line) and the request bodies it builds, compared with the
 * contract's JSON exactly. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/client-args.h"

/* Parses the NULL-terminated words after the program's name; asserts success. */
#define PARSE(a, ...) parse_ok(a, (const char *[]){"cordon-session", __VA_ARGS__, NULL})

static char err[512];

static int parse(struct client_args *a, const char **words)
{
        int argc = 0;
        while (words[argc])
                argc++;
        /* getopt may permute nothing ('+'), but takes char **: a copy of the words. */
        static char *argv[64];
        for (int i = 0; i < argc; i++)
                argv[i] = strdup(words[i]);
        argv[argc] = NULL;
        err[0] = 0;
        return client_args_parse(argc, argv, "/home/u/proj", "/bin/zsh", a, err, sizeof(err));
}

static void parse_ok(struct client_args *a, const char **words)
{
        int r = parse(a, words);
        cr_assert_eq(r, 0, "%s: %s", words[1], err);
}

/* The words are refused with exactly @want. */
static void refused(const char *want, const char **words)
{
        struct client_args a;
        int r = parse(&a, words);
        cr_assert_eq(r, -EINVAL, "%s: want a refusal, got %d", words[1], r);
        cr_assert_str_eq(err, want);
        client_args_clear(&a);
}
#define REFUSED(want, ...) refused(want, (const char *[]){"cordon-session", ##__VA_ARGS__, NULL})

static void assert_body(char *body, const char *want)
{
        cr_assert(body);
        cr_assert_str_eq(body, want);
        free(body);
}

Test(client_args, create_every_option_makes_the_spec)
{
        struct client_args a;
        PARSE(&a, "create", "--id", "s1", "--label", "team=ml", "--label", "a=b=c", "--mount",
              "/data:/mnt/data:ro", "--mount", ":/scratch", "--net", "example.com,api.x.org",
              "--memory", "512", "--cpus", "2", "--wall-time", "30", "--idle-timeout", "1.5",
              "--from-snapshot", "snap-1", "--json");
        cr_assert_eq(a.command, CLIENT_CREATE);
        cr_assert(a.json);
        assert_body(client_spec_body(&a),
                    "{\"session_id\":\"s1\",\"labels\":{\"a\":\"b=c\",\"team\":\"ml\"},"
                    "\"network_policy\":{\"mode\":\"limited\",\"allowed_hosts\":[\"example.com\","
                    "\"api.x.org\"]},\"mounts\":[{\"source\":\"/data\",\"target\":\"/mnt/data\","
                    "\"access\":\"read_only\"},{\"source\":\"\",\"target\":\"/scratch\","
                    "\"access\":\"read_write\"}],\"limits\":{\"wall_time\":{\"secs\":30,"
                    "\"nanos\":0},\"cpu_count\":2,\"memory_mb\":512,\"idle_timeout\":{\"secs\":1,"
                    "\"nanos\":500000000}},\"from_snapshot\":\"snap-1\"}");
        client_args_clear(&a);
}

Test(client_args, create_with_nothing_is_the_default_spec)
{
        struct client_args a;
        PARSE(&a, "create");
        assert_body(client_spec_body(&a),
                    "{\"session_id\":null,\"labels\":{},\"network_policy\":{\"mode\":"
                    "\"unrestricted\"},\"mounts\":[],\"limits\":{\"wall_time\":null,\"cpu_count\":"
                    "null,\"memory_mb\":null,\"idle_timeout\":null}}");
        client_args_clear(&a);
}

Test(client_args, a_repeated_label_key_keeps_the_last_value_as_a_btreemap_does)
{
        struct client_args a;
        PARSE(&a, "create", "--label", "k=1", "--label", "k=2");
        char *b = client_spec_body(&a);
        cr_assert(strstr(b, "\"labels\":{\"k\":\"2\"}"), "%s", b);
        free(b);
        client_args_clear(&a);
}

/* The mount of `create --mount @arg`, as JSON. */
static void mount_is(const char *arg, const char *want)
{
        struct client_args a;
        PARSE(&a, "create", "--mount", arg);
        cr_assert_eq(a.spec.n_mounts, 1);
        char *b = client_spec_body(&a);
        char *m = strstr(b, "\"mounts\":[");
        cr_assert(m, "%s", b);
        m += strlen("\"mounts\":[");
        *strstr(m, "]") = 0;
        cr_assert_str_eq(m, want, "--mount %s", arg);
        free(b);
        client_args_clear(&a);
}

Test(client_args, mount_forms)
{
        mount_is("/h:/g", "{\"source\":\"/h\",\"target\":\"/g\",\"access\":\"read_write\"}");
        mount_is("/h:/g:rw", "{\"source\":\"/h\",\"target\":\"/g\",\"access\":\"read_write\"}");
        mount_is("/h:/g:ro", "{\"source\":\"/h\",\"target\":\"/g\",\"access\":\"read_only\"}");
        /* An empty source: a fresh directory of the session's. */
        mount_is(":/g:ro", "{\"source\":\"\",\"target\":\"/g\",\"access\":\"read_only\"}");
        /* A source with ':' in it: the target is after the last one. */
        mount_is("/a:b:/g:ro", "{\"source\":\"/a:b\",\"target\":\"/g\",\"access\":\"read_only\"}");
        /* A relative source is the caller's, made absolute: the daemon's directory differs. */
        mount_is("data:/g",
                 "{\"source\":\"/home/u/proj/data\",\"target\":\"/g\",\"access\":\"read_write\"}");
        /* One colon and "ro" after it: that is the target (the daemon refuses a relative one). */
        mount_is("/h:ro", "{\"source\":\"/h\",\"target\":\"ro\",\"access\":\"read_write\"}");
}

Test(client_args, mount_refusals)
{
        REFUSED("--mount: 'nocolon' is not SRC:DST[:ro|rw]", "create", "--mount", "nocolon");
        REFUSED("--mount: '/h:' is not SRC:DST[:ro|rw]", "create", "--mount", "/h:");
        REFUSED("--mount: '/h::ro' is not SRC:DST[:ro|rw]", "create", "--mount", "/h::ro");
}

Test(client_args, network_forms)
{
        struct client_args a;
        PARSE(&a, "create", "--net", "none");
        char *b = client_spec_body(&a);
        cr_assert(strstr(b, "\"network_policy\":{\"mode\":\"limited\",\"allowed_hosts\":[]}"), "%s",
                  b);
        free(b);
        client_args_clear(&a);
        /* The last --net wins. */
        PARSE(&a, "create", "--net", "a.org", "--net", "unrestricted");
        b = client_spec_body(&a);
        cr_assert(strstr(b, "\"network_policy\":{\"mode\":\"unrestricted\"}"), "%s", b);
        free(b);
        client_args_clear(&a);
        REFUSED("--net: 'a.org,,b.org' has an empty host (unrestricted, none, or HOST,HOST...)",
                "create", "--net", "a.org,,b.org");
        REFUSED("--net: ',' has an empty host (unrestricted, none, or HOST,HOST...)", "create",
                "--net", ",");
}

Test(client_args, numbers_and_durations)
{
        REFUSED("--memory: '0' is not a whole number from 1 to 4294967295", "create", "--memory",
                "0");
        REFUSED("--memory: '4294967296' is not a whole number from 1 to 4294967295", "create",
                "--memory", "4294967296");
        REFUSED("--cpus: '-1' is not a whole number from 1 to 4294967295", "create", "--cpus",
                "-1");
        REFUSED("--cpus: '2x' is not a whole number from 1 to 4294967295", "create", "--cpus",
                "2x");
        REFUSED("--wall-time: '1e3' is not a number of seconds (such as 30 or 0.5)", "create",
                "--wall-time", "1e3");
        REFUSED("--timeout: '-1' is not a number of seconds (such as 30 or 0.5)", "exec", "s",
                "--timeout", "-1", "true");

        struct serve_duration d;
        cr_assert_eq(client_parse_seconds("0", &d), 0);
        cr_assert(d.set && d.secs == 0 && d.nanos == 0);
        cr_assert_eq(client_parse_seconds("2.000000001", &d), 0);
        cr_assert(d.secs == 2 && d.nanos == 1);
        cr_assert_eq(client_parse_seconds("0.25", &d), 0);
        cr_assert(d.secs == 0 && d.nanos == 250000000);
        cr_assert_eq(client_parse_seconds("9007199254740992", &d), 0);
        static const char *const bad[] = {"",
                                          "-1",
                                          ".5",
                                          "1.",
                                          "1.0000000001",
                                          "1 ",
                                          " 1",
                                          "0x10",
                                          "1,5",
                                          "9007199254740993",
                                          "1s",
                                          "inf",
                                          "99999999999999999999"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                cr_assert_eq(client_parse_seconds(bad[i], &d), -EINVAL, "'%s'", bad[i]);
}

Test(client_args, label_and_env_need_key_equals_value)
{
        REFUSED("--label: 'novalue' is not KEY=VALUE", "create", "--label", "novalue");
        REFUSED("--label: '=v' is not KEY=VALUE", "create", "--label", "=v");
        REFUSED("--env: 'X' is not NAME=VALUE", "exec", "s", "--env", "X", "--", "true");
}

Test(client_args, exec_operands_and_options)
{
        struct client_args a;
        PARSE(&a, "exec", "--cwd", "sub", "s1", "--env", "A=1", "--env", "B=x y", "--timeout",
              "2.5", "--", "ls", "-l", "--json");
        cr_assert_eq(a.command, CLIENT_EXEC);
        cr_assert_str_eq(a.id, "s1");
        cr_assert(!a.json, "--json after the command is the command's");
        assert_body(client_exec_body(&a),
                    "{\"command\":\"ls\",\"args\":[\"-l\",\"--json\"],\"cwd\":\"sub\",\"env\":{"
                    "\"A\":\"1\",\"B\":\"x y\"},\"stdin\":null,\"timeout\":{\"secs\":2,"
                    "\"nanos\":500000000}}");
        client_args_clear(&a);

        /* Without "--" the first word after the id starts the command: its options are its. */
        PARSE(&a, "exec", "s1", "--json", "sh", "-c", "exit 3");
        cr_assert(a.json);
        assert_body(client_exec_body(&a),
                    "{\"command\":\"sh\",\"args\":[\"-c\",\"exit 3\"],\"cwd\":null,\"env\":{},"
                    "\"stdin\":null,\"timeout\":null}");
        client_args_clear(&a);

        /* An id that starts with '-' after "--". */
        PARSE(&a, "exec", "--", "-odd", "true");
        cr_assert_str_eq(a.id, "-odd");
        cr_assert_str_eq(a.exec.command, "true");
        client_args_clear(&a);

        PARSE(&a, "exec", "s1", "--stdin-file", "-", "cat");
        cr_assert_str_eq(a.stdin_file, "-");
        client_args_clear(&a);

        REFUSED("no session id given", "exec");
        REFUSED("no command given", "exec", "s1");
        REFUSED("no command given", "exec", "s1", "--");
        REFUSED("option '--cwd' needs a value", "exec", "s1", "--cwd");
        REFUSED("unknown option '--cdw'", "exec", "s1", "--cdw=/x", "true");
        REFUSED("unknown option '-x'", "exec", "-x", "s1", "true");
}

Test(client_args, attach_runs_the_shell_on_a_pty_by_default)
{
        struct client_args a;
        PARSE(&a, "attach", "s1");
        cr_assert_eq(a.command, CLIENT_ATTACH);
        assert_body(client_exec_body(&a),
                    "{\"command\":\"/bin/zsh\",\"args\":[],\"cwd\":null,\"env\":{},\"stdin\":null,"
                    "\"timeout\":null,\"pty\":true}");
        client_args_clear(&a);
        PARSE(&a, "attach", "s1", "--", "top", "-b");
        assert_body(client_exec_body(&a),
                    "{\"command\":\"top\",\"args\":[\"-b\"],\"cwd\":null,\"env\":{},\"stdin\":null,"
                    "\"timeout\":null,\"pty\":true}");
        client_args_clear(&a);

        /* No $SHELL (or an empty one): /bin/sh. */
        static char prog[] = "cordon-session", attach[] = "attach", s1[] = "s1";
        char *argv[] = {prog, attach, s1, NULL};
        cr_assert_eq(client_args_parse(3, argv, "/", "", &a, err, sizeof(err)), 0);
        cr_assert_str_eq(a.exec.command, "/bin/sh");
        client_args_clear(&a);
        cr_assert_eq(client_args_parse(3, argv, "/", NULL, &a, err, sizeof(err)), 0);
        cr_assert_str_eq(a.exec.command, "/bin/sh");
        client_args_clear(&a);
        REFUSED("unknown option '--timeout'", "attach", "--timeout", "1", "s1");
}

Test(client_args, one_id_commands)
{
        static const char *const names[] = {"snapshot", "suspend", "resume", "rm"};
        static const enum client_command want[] = {CLIENT_SNAPSHOT, CLIENT_SUSPEND, CLIENT_RESUME,
                                                   CLIENT_RM};
        for (size_t i = 0; i < 4; i++) {
                struct client_args a;
                PARSE(&a, names[i], "s1");
                cr_assert_eq(a.command, want[i]);
                cr_assert_str_eq(a.id, "s1");
                client_args_clear(&a);
                PARSE(&a, names[i], "--", "--dashy");
                cr_assert_str_eq(a.id, "--dashy");
                client_args_clear(&a);
                REFUSED("no session id given", names[i]);
                REFUSED("unexpected argument 'b'", names[i], "a", "b");
                REFUSED("unexpected argument 'b'", names[i], "--", "a", "b");
        }
        REFUSED("unknown option '--json'", "rm", "--json", "s1");
        REFUSED("unexpected argument 'x'", "ls", "x");
        REFUSED("unexpected argument 'x'", "create", "x");
}

Test(client_args, socket_help_version_and_unknown_commands)
{
        struct client_args a;
        PARSE(&a, "--socket", "/run/a.sock", "ls");
        cr_assert_str_eq(a.socket, "/run/a.sock");
        client_args_clear(&a);
        PARSE(&a, "--socket", "/run/a.sock", "ls", "--socket", "/run/b.sock");
        cr_assert_str_eq(a.socket, "/run/b.sock", "the command's own --socket wins");
        client_args_clear(&a);
        PARSE(&a, "--help");
        cr_assert(a.help);
        cr_assert_eq(a.command, _CLIENT_COMMAND_MAX);
        client_args_clear(&a);
        PARSE(&a, "exec", "--help");
        cr_assert(a.help);
        cr_assert_eq(a.command, CLIENT_EXEC);
        client_args_clear(&a);
        PARSE(&a, "--version");
        cr_assert(a.version);
        client_args_clear(&a);
        REFUSED("no command given");
        REFUSED("no command given", "--socket", "/x");
        REFUSED("unknown command 'lst'", "lst");
        REFUSED("unknown option '--jsn'", "--jsn", "ls");
        REFUSED("option '--socket' needs a value", "--socket");
}

Test(client_args, text_that_is_not_utf8_is_refused_not_changed)
{
        REFUSED("the command: the value is not UTF-8 text", "exec", "s", "\xff");
        REFUSED("an argument: the value is not UTF-8 text", "exec", "s", "echo", "a\xc0\xaf");
        REFUSED("--env: the value is not UTF-8 text", "exec", "s", "--env", "A=\xed\xa0\x80",
                "true");
        REFUSED("--label: the value is not UTF-8 text", "create", "--label", "k=\xfe");
        REFUSED("the session id: the value is not UTF-8 text", "rm", "\x80");
        REFUSED("--mount: the value is not UTF-8 text", "create", "--mount", "/\xff:/g");
        REFUSED("--id: the value is not UTF-8 text", "create", "--id", "\xff");
}

Test(client_args, process_bodies)
{
        assert_body(client_stdin_body("ls\r", 3, false), "{\"data\":\"bHMN\",\"eof\":false}");
        assert_body(client_stdin_body("", 0, true), "{\"data\":\"\",\"eof\":true}");
        assert_body(client_resize_body(24, 80), "{\"rows\":24,\"cols\":80}");
        assert_body(client_signal_body(1), "{\"signal\":1}");
}

/* The help comes from the tables: each command's lists its options. */
Test(client_args, help_lists_each_commands_options)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        client_help(f, CLIENT_EXEC);
        fclose(f);
        cr_assert(strstr(buf, "Usage: cordon session exec [OPTIONS] ID [--] COMMAND [ARGS...]"));
        static const char *const opts[] = {
            "--cwd DIR", "--env NAME=VALUE", "--timeout S", "--stdin-file FILE|-",
            "--json",    "--socket PATH",    "-h, --help"};
        for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
                cr_assert(strstr(buf, opts[i]), "exec's help lacks %s", opts[i]);
        free(buf);
        f = open_memstream(&buf, &len);
        client_help(f, _CLIENT_COMMAND_MAX);
        fclose(f);
        for (int c = 0; c < _CLIENT_COMMAND_MAX; c++) {
                char line[32];
                snprintf(line, sizeof(line), "\n  %-10s ", client_command_name(c));
                cr_assert(strstr(buf, line), "the program's help lacks %s", line);
        }
        free(buf);
}
