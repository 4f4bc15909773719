/* cordon_settings_lower(): pins, read-only git metadata and agent settings, and masks over unix
 * sockets (lower-protect.c), and the /proc/net/unix parser. Fixture in lower-fixture.h. */
#include <sys/socket.h>
#include <sys/un.h>

#include "lib/settings/cap-policy.h"
#include "lib/mech/landlock.h"
#include "lib/resolve/proc-net-unix.h"
#include "shared/fd-util.h"
#define LOWER_FIXTURE_AGENTS_INSTALLED
#include "lower-fixture.h"

TestSuite(lower_protect, .init = setup, .fini = teardown);

static const struct cordon_fs_rule *pin_at(const char *guest)
{
        const struct cordon_fs_rule *r = rule(guest, CORDON_ACCESS_RW);
        return r && (r->flags & CORDON_FS_NS_ONLY) ? r : NULL;
}

static void assert_ro_ns_only(const char *guest)
{
        const struct cordon_fs_rule *r = rule(guest, CORDON_ACCESS_RO);
        if (!r)
                dump();
        cr_assert_not_null(r, "no read-only rule at '%s'", guest);
        cr_assert_str_eq(r->host, guest);
        cr_assert(r->flags & CORDON_FS_NS_ONLY, "'%s' is left to the namespace backend", guest);
}

/* Files of commands an agent runs on the host are private copies inside (the agent may change
 * them; the host file is never written through); the landlock backend grants the host file
 * read-only instead, so they are not ns-only. */
static void assert_copy(const char *guest)
{
        const struct cordon_fs_rule *r = rule(guest, CORDON_ACCESS_COPY);
        if (!r)
                dump();
        cr_assert_not_null(r, "no private copy at '%s'", guest);
        cr_assert_str_eq(r->host, guest);
        cr_assert_not(r->flags & CORDON_FS_NS_ONLY, "'%s' holds on both backends", guest);
}

/* ---- pins ---- */

Test(lower_protect, every_directory_above_a_nested_mask_is_pinned)
{
        write_file(fmt("%s/a/b/secret.yml", project), "x");
        mkdir_p(fmt("%s/sib", project));
        cr_assert_eq(cordon_list_add(&s.blocked_files, fmt("%s/a/b/secret.yml", project), "--mask"),
                     0);
        lower_ok();
        assert_masked(fmt("%s/a/b/secret.yml", project));
        cr_assert_not_null(pin_at(fmt("%s/a", project)));
        cr_assert_not_null(pin_at(fmt("%s/a/b", project)));
        cr_assert_str_eq(pin_at(fmt("%s/a/b", project))->host, fmt("%s/a/b", project));
        cr_assert_null(rule(fmt("%s/sib", project), CORDON_ACCESS_RW), "nothing to keep there");
        cr_assert_null(rule(fmt("%s/a/b/secret.yml", project), CORDON_ACCESS_RW));
}

Test(lower_protect, a_symlink_on_the_way_is_not_pinned)
{
        write_file(fmt("%s/real/secret", project), "x");
        cr_assert_eq(symlink("real", fmt("%s/link", project)), 0);
        /* The mask is put at the realpath; the link itself leads nowhere a pin could hold. */
        cr_assert_eq(cordon_list_add(&s.blocked_files, fmt("%s/link/secret", project), "--mask"),
                     0);
        lower_ok();
        cr_assert_null(rule(fmt("%s/link", project), CORDON_ACCESS_RW));
        cr_assert_not_null(pin_at(fmt("%s/real", project)));
}

Test(lower_protect, pins_follow_the_guest_path_of_their_bind)
{
        /* --home-access write: the home is carved (read-only, each entry a read-write bind of
         * its own), and a --hide'd path deeper down gets its parents pinned relative to the
         * entry's bind. */
        s.home_access = CORDON_HOME_WRITE;
        write_file(fmt("%s/work/a/tool/token", home), "x");
        cr_assert_eq(cordon_list_add(&s.extra_blocked_paths, fmt("%s/work/a/tool", home), "--hide"),
                     0);
        lower_ok();
        assert_masked(fmt("%s/work/a/tool", home));
        cr_assert_not_null(rule(fmt("%s/work", home), CORDON_ACCESS_RW));
        cr_assert_not_null(pin_at(fmt("%s/work/a", home)));
}

Test(lower_protect, a_pin_below_a_read_only_bind_keeps_it_read_only)
{
        /* --ro of a directory of the (writable) project, a mask deeper in it: the directory
         * between them is pinned with the read-only bind's access and host, not the
         * project's read-write. */
        write_file(fmt("%s/ro/b/secret.yml", project), "x");
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, fmt("%s/ro", project), "--ro"), 0);
        cr_assert_eq(
            cordon_list_add(&s.blocked_files, fmt("%s/ro/b/secret.yml", project), "--mask"), 0);
        lower_ok();
        assert_masked(fmt("%s/ro/b/secret.yml", project));
        cr_assert_null(rule(fmt("%s/ro/b", project), CORDON_ACCESS_RW), "not made writable");
        assert_ro_ns_only(fmt("%s/ro/b", project));
}

/* ---- git ---- */

Test(lower_protect, git_config_and_hooks_read_only)
{
        write_file(fmt("%s/.git/config", project), "[core]\n");
        mkdir_p(fmt("%s/.git/hooks", project));
        lower_ok();
        assert_ro_ns_only(fmt("%s/.git/config", project));
        assert_ro_ns_only(fmt("%s/.git/hooks", project));
        cr_assert_not_null(pin_at(fmt("%s/.git", project)), ".git cannot be swapped for another");
}

Test(lower_protect, missing_git_hooks_created_first)
{
        write_file(fmt("%s/.git/config", project), "[core]\n");
        lower_ok();
        struct stat st;
        cr_assert_eq(lstat(fmt("%s/.git/hooks", project), &st), 0);
        cr_assert(S_ISDIR(st.st_mode));
        cr_assert(warned("created commondir, hooks, info, modules, worktrees, config.worktree in"));
        assert_ro_ns_only(fmt("%s/.git/hooks", project));
        assert_ro_ns_only(fmt("%s/.git/commondir", project));
}

Test(lower_protect, git_left_alone_when_turned_off_or_absent)
{
        write_file(fmt("%s/.git/config", project), "[core]\n");
        s.protect_git = false;
        lower_ok();
        cr_assert_null(rule(fmt("%s/.git/config", project), CORDON_ACCESS_RO));
        cr_assert_not(exists(fmt("%s/.git/hooks", project)), "nothing created when turned off");

        cr_assert_not(exists(fmt("%s/.git/commondir", project)));
}

/* Allow list: what git writes stays writable; everything else that exists is read-only. */
Test(lower_protect, git_allow_list)
{
        write_file(fmt("%s/.git/config", project), "[core]\n");
        write_file(fmt("%s/.git/HEAD", project), "ref: refs/heads/main\n");
        write_file(fmt("%s/.git/index", project), "");
        write_file(fmt("%s/.git/packed-refs", project), "");
        write_file(fmt("%s/.git/index.lock", project), "");
        write_file(fmt("%s/.git/description", project), "x");
        mkdir_p(fmt("%s/.git/objects", project));
        mkdir_p(fmt("%s/.git/refs", project));
        mkdir_p(fmt("%s/.git/remotes", project));
        lower_ok();
        const char *writable[] = {"HEAD", "index", "packed-refs", "index.lock", "objects", "refs"};
        for (size_t i = 0; i < ELEMENTSOF(writable); i++)
                cr_assert_null(rule(fmt("%s/.git/%s", project, writable[i]), CORDON_ACCESS_RO),
                               "%s", writable[i]);
        assert_ro_ns_only(fmt("%s/.git/description", project));
        assert_ro_ns_only(fmt("%s/.git/remotes", project));
        assert_ro_ns_only(fmt("%s/.git/worktrees", project));
        cr_assert_str_eq(p->git_protected, fmt("%s/.git", project));
}

/* A submodule's and a linked worktree's git directories inside the read-only modules/ and
 * worktrees/ are opened again and kept the same way. */
Test(lower_protect, git_nested_dirs_reopened)
{
        write_file(fmt("%s/.git/HEAD", project), "ref: refs/heads/main\n");
        write_file(fmt("%s/.git/modules/lib/a/HEAD", project), "ref: refs/heads/main\n");
        write_file(fmt("%s/.git/worktrees/wt/HEAD", project), "ref: refs/heads/wt\n");
        write_file(fmt("%s/.git/worktrees/wt/commondir", project), "../..\n");
        lower_ok();
        assert_ro_ns_only(fmt("%s/.git/modules", project));
        cr_assert_not_null(pin_at(fmt("%s/.git/modules/lib/a", project)));
        assert_ro_ns_only(fmt("%s/.git/modules/lib/a/config", project));
        cr_assert_not_null(pin_at(fmt("%s/.git/worktrees/wt", project)));
        assert_ro_ns_only(fmt("%s/.git/worktrees/wt/commondir", project));
        assert_ro_ns_only(fmt("%s/.git/worktrees/wt/config.worktree", project));
        cr_assert_null(
            cordon_policy_find_host_action(p, fmt("%s/.git/worktrees/wt/hooks", project)),
            "a linked worktree's hooks come from the common directory");
}

/* A .git file: the directory it names is kept, and the file itself is read-only. */
Test(lower_protect, git_file_followed)
{
        mkdir_p(fmt("%s/wt/store/wt.git/objects", project));
        write_file(fmt("%s/wt/.git", project), "gitdir: store/wt.git\n");
        free(s.project_dir);
        s.project_dir = strdup(fmt("%s/wt", project));
        lower_ok();
        assert_ro_ns_only(fmt("%s/wt/.git", project));
        assert_ro_ns_only(fmt("%s/wt/store/wt.git/hooks", project));

        /* One naming nothing is refused: the sandbox could make what it names. */
        write_file(fmt("%s/wt/.git", project), "gitdir: /elsewhere\n");
        cr_assert_eq(lower(), -ENOENT);
        cr_assert(strstr(diag.message, "PROTECT_GIT_CONFIG"), "%s", diag.message);
}

/* The repository at the root of a writable path the user named, and of a writable home; none is
 * made where there is no .git. */
Test(lower_protect, git_of_named_writable_paths)
{
        write_file(fmt("%s/other/.git/HEAD", root), "ref: refs/heads/main\n");
        mkdir_p(fmt("%s/plain", root));
        write_file(fmt("%s/.git/HEAD", home), "ref: refs/heads/main\n");
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, fmt("%s/other", root), "--rw"), 0);
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, fmt("%s/plain", root), "--rw"), 0);
        lower_ok();
        assert_ro_ns_only(fmt("%s/other/.git/config", root));
        cr_assert_null(cordon_policy_find_host_action(p, fmt("%s/plain/.git", root)));
        cr_assert_null(rule(fmt("%s/.git/config", home), CORDON_ACCESS_RO), "home not writable");
        s.home_access = CORDON_HOME_WRITE;
        lower_ok();
        assert_ro_ns_only(fmt("%s/.git/config", home));
}

/* A writable project without .git gets an empty read-only directory, which git passes over;
 * silently. An empty one found is kept the same way, not filled with stand-ins. */
Test(lower_protect, git_stand_in_for_a_project_without_one)
{
        lower_ok();
        const struct cordon_host_action *a =
            cordon_policy_find_host_action(p, fmt("%s/.git", project));
        cr_assert_not_null(a);
        cr_assert_eq(a->kind, CORDON_HOST_MKDIR);
        cr_assert_null(a->warning);
        assert_ro_ns_only(fmt("%s/.git", project));

        mkdir_p(fmt("%s/.git", project));
        lower_ok();
        cr_assert_eq(p->n_actions, 0, "nothing made in it");
        assert_ro_ns_only(fmt("%s/.git", project));
        cr_assert_null(p->git_protected, "not a repository: the landlock backend may run");
}

Test(lower_protect, git_symlinked_config_warned)
{
        write_file(fmt("%s/cfg", root), "[core]\n");
        mkdir_p(fmt("%s/.git/hooks", project));
        cr_assert_eq(symlink(fmt("%s/cfg", root), fmt("%s/.git/config", project)), 0);
        lower_ok();
        cr_assert(warned("cannot be kept read-only"));
        cr_assert_null(rule(fmt("%s/.git/config", project), CORDON_ACCESS_RO));
}

/* ---- agent settings ---- */

/* An agent's existing files of commands stay private copies over its read-only directory; a
 * missing one is not made on the host (its private home holds an empty copy). */
Test(lower_protect, agent_settings_copied_and_none_created)
{
        write_file(fmt("%s/.claude/settings.json", home), "{\"x\":1}");
        lower_ok();
        assert_copy(fmt("%s/.claude/settings.json", home));
        cr_assert_null(rule(fmt("%s/.claude/settings.local.json", home), CORDON_ACCESS_COPY));
        cr_assert_not(exists(fmt("%s/.claude/settings.local.json", home)));
        cr_assert_not(exists(fmt("%s/.codex/config.toml", home)));
        cr_assert_not(exists(fmt("%s/.gemini/settings.json", home)));
        cr_assert_eq(p->n_agent_homes, 3);
        cr_assert_not(warned("settings.json"), "nothing to say");
        cr_assert_not_null(rule(fmt("%s/.claude", home), CORDON_ACCESS_RO), "around its state");
}

/* Before profiles, "only the agents whose directory is in HOME_WRITABLE"; now the agents of
 * ENABLED_AGENTS, whose profiles put their directories there. */
Test(lower_protect, agent_settings_only_for_enabled_agents)
{
        cordon_list_clear(&s.enabled_agents);
        cr_assert_eq(cordon_list_add(&s.enabled_agents, "codex", "test"), 0);
        lower_ok();
        cr_assert_null(rule(fmt("%s/.claude/settings.json", home), CORDON_ACCESS_RO));
        cr_assert_null(rule(fmt("%s/.claude/settings.json", home), CORDON_ACCESS_COPY));
        cr_assert_not(exists(fmt("%s/.claude", home)));
        cr_assert_eq(p->n_agent_homes, 1);
        cr_assert_str_eq(p->agent_homes[0].agent, "codex");
}

Test(lower_protect, landlock_backend_plan_leaves_them_out)
{
        write_file(fmt("%s/.git/config", project), "[core]\n");
        lower_ok();
        struct cordon_landlock_plan plan = {0};
        cr_assert_eq(cordon_landlock_plan_build(p, CORDON_BACKEND_LANDLOCK, 6, &plan), 0);
        /* What the rules at or above it give (one of its own adds nothing below an equal one). */
        uint64_t settings = 0;
        for (size_t i = 0; i < plan.n_rules; i++) {
                cr_assert_str_neq(plan.rules[i].path, fmt("%s/.git/config", project));
                cr_assert(!path_is_below(plan.rules[i].path, project) ||
                              streq(plan.rules[i].path, project),
                          "no carving of the project: %s", plan.rules[i].path);
                /* ~/.claude is read-only: its file of commands needs no carving, and is read-only
                 * (no private copy without a mount namespace). */
                if (path_is_below(fmt("%s/.claude/settings.json", home), plan.rules[i].path))
                        settings |= plan.rules[i].access;
        }
        cr_assert(settings && !(settings & CORDON_LANDLOCK_FS_WRITE),
                  "~/.claude/settings.json granted read-only");
        cordon_landlock_plan_clear(&plan);
}

/* An explicit landlock backend drops ns-only rules: none is made, and nothing is planned on the
 * host for them (the sandbox could write those files there anyway). */
Test(lower_protect, landlock_backend_makes_none)
{
        s.backend = CORDON_BACKEND_LANDLOCK;
        write_file(fmt("%s/.claude/settings.json", home), "{}");
        lower_ok();
        cr_assert_not(exists(fmt("%s/.git", project)), "no stand-in it could not keep");
        /* The agents' files are not ns-only: read-only grants there (agent profiles). */
        cr_assert_not_null(rule(fmt("%s/.claude/settings.json", home), CORDON_ACCESS_COPY));
        for (size_t i = 0; i < p->n_fs; i++)
                cr_assert_not(p->fs[i].flags & CORDON_FS_NS_ONLY &&
                                  p->fs[i].access == CORDON_ACCESS_RO,
                              "ns-only rule at '%s'", p->fs[i].guest);
}

/* A writable repository is refused there, naming the variable; without protection it runs. */
Test(lower_protect, landlock_backend_refuses_a_writable_repository)
{
        write_file(fmt("%s/.git/HEAD", project), "ref: refs/heads/main\n");
        s.backend = CORDON_BACKEND_LANDLOCK;
        cr_assert_eq(lower(), -EOPNOTSUPP);
        cr_assert(strstr(diag.message, "PROTECT_GIT_CONFIG"), "%s", diag.message);
        cr_assert_not(exists(fmt("%s/.git/hooks", project)));
        s.protect_git = false;
        lower_ok();
}

/* ---- unix sockets ---- */

static int listen_at(const char *path)
{
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        cr_assert_geq(fd, 0);
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        cr_assert_lt(strlen(path), sizeof(sa.sun_path));
        strcpy(sa.sun_path, path);
        cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "bind %s: %m", path);
        return fd;
}

/* A table naming @sock, plus an abstract name and an unnamed socket. */
static void fake_table(const char *sock)
{
        write_file(in_root("unix"),
                   fmt("Num       RefCount Protocol Flags    Type St Inode Path\n"
                       "0000000000000000: 00000002 00000000 00010000 0001 01 11 %s\n"
                       "0000000000000000: 00000002 00000000 00010000 0001 01 12 @abstract\n"
                       "0000000000000000: 00000003 00000000 00000000 0001 03 13\n",
                       sock));
        h.proc_net_unix = in_root("unix");
}

Test(lower_protect, socket_below_home_bind_masked)
{
        mkdir_p(fmt("%s/.local/run", home));
        const char *sock = fmt("%s/.local/run/svc.sock", home);
        _cleanup_close_ int fd = listen_at(sock);
        cr_assert_geq(fd, 0);
        fake_table(sock);
        s.home_access = CORDON_HOME_READ;
        lower_ok();
        assert_masked(sock);
        const struct cordon_fs_rule *m = rule(sock, CORDON_ACCESS_MASKED);
        cr_assert(m && (m->flags & CORDON_FS_NS_ONLY));
        cr_assert_not(warned("svc.sock"));
}

Test(lower_protect, socket_not_visible_left_alone)
{
        mkdir_p(fmt("%s/.local/run", home));
        const char *sock = fmt("%s/.local/run/svc.sock", home);
        _cleanup_close_ int fd = listen_at(sock);
        cr_assert_geq(fd, 0);
        fake_table(sock);
        lower_ok(); /* tmpwrite: the home is a fresh tmpfs */
        cr_assert_null(rule(sock, CORDON_ACCESS_MASKED));
}

Test(lower_protect, socket_below_named_path_warned)
{
        mkdir_p(fmt("%s/.local/run", home));
        const char *sock = fmt("%s/.local/run/svc.sock", home);
        _cleanup_close_ int fd = listen_at(sock);
        cr_assert_geq(fd, 0);
        fake_table(sock);
        s.home_access = CORDON_HOME_READ;
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, fmt("%s/.local", home), "--ro"), 0);
        lower_ok();
        cr_assert_null(rule(sock, CORDON_ACCESS_MASKED));
        cr_assert(warned(fmt("unix socket '%s' is reachable inside", sock)));

        const char *psock = fmt("%s/p.sock", project);
        _cleanup_close_ int pfd = listen_at(psock);
        cr_assert_geq(pfd, 0);
        fake_table(psock);
        lower_ok();
        cr_assert_null(rule(psock, CORDON_ACCESS_MASKED), "the project was named by the user");
        cr_assert(warned(psock));
}

Test(lower_protect, unreadable_table_refused)
{
        write_file(in_root("unix"), "not the kernel's table\n");
        h.proc_net_unix = in_root("unix");
        cr_assert_eq(lower(), -EBADMSG);
        cr_assert(strstr(diag.message, "unix sockets"), "%s", diag.message);
}

/* The landlock backend refuses socket(): the table is not even read (a broken one would
 * otherwise refuse the run), and no mask or warning is made. */
Test(lower_protect, landlock_backend_skips_the_socket_table)
{
        mkdir_p(fmt("%s/.local/run", home));
        const char *sock = fmt("%s/.local/run/svc.sock", home);
        _cleanup_close_ int fd = listen_at(sock);
        cr_assert_geq(fd, 0);
        fake_table(sock);
        s.home_access = CORDON_HOME_READ;
        s.backend = CORDON_BACKEND_LANDLOCK;
        lower_ok();
        cr_assert_null(rule(sock, CORDON_ACCESS_MASKED));
        cr_assert_not(warned("svc.sock"));
        write_file(in_root("unix"), "not the kernel's table\n");
        lower_ok();
}

/* What was resolved without the ns backend's rules cannot be launched by the ns backend. */
Test(lower_protect, landlock_resolved_policy_stays_landlock)
{
        s.backend = CORDON_BACKEND_LANDLOCK;
        lower_ok();
        cr_assert_eq(cordon_policy_set_backend(p, CORDON_BACKEND_NS), -EPERM);
        cr_assert_eq(cordon_policy_set_backend(p, CORDON_BACKEND_AUTO), -EPERM);
        cr_assert_eq(cordon_policy_set_backend(p, CORDON_BACKEND_LANDLOCK), 0);
        /* Control: a policy resolved for auto may go either way. */
        s.backend = CORDON_BACKEND_AUTO;
        lower_ok();
        cr_assert_eq(cordon_policy_set_backend(p, CORDON_BACKEND_NS), 0);
}

/* ---- the parser ---- */

Test(lower_protect, parser_paths)
{
        static const char t[] = "Num       RefCount Protocol Flags    Type St Inode Path\n"
                                "0000: 00000002 00000000 00010000 0001 01 1 /run/a.sock\n"
                                "0000: 00000002 00000000 00010000 0001 01 2 @abs\n"
                                "0000: 00000003 00000000 00000000 0001 03 3\n"
                                "0000: 00000003 00000000 00000000 0001 03 4 /run/a.sock\n"
                                "0000: 00000002 00000000 00000000 0002 01 5 /x/with space.sock\n"
                                "0000: 00000002 00000000 00000000 0002 01 6 rel.sock\n"
                                "0000: 00000002 00000000 00000000 0002 01 7 /last";
        _cleanup_strv_free_ char **out = NULL;
        cr_assert_eq(cordon_proc_net_unix_parse(t, sizeof(t) - 1, &out), 0);
        cr_assert_eq(strv_length(out), 3);
        cr_assert_str_eq(out[0], "/run/a.sock");
        cr_assert_str_eq(out[1], "/x/with space.sock");
        cr_assert_str_eq(out[2], "/last");
}

Test(lower_protect, parser_limits)
{
        char **out = NULL;
        cr_assert_eq(cordon_proc_net_unix_parse("", 0, &out), -EBADMSG);
        cr_assert_eq(cordon_proc_net_unix_parse("x\n", 2, &out), -EBADMSG);
        cr_assert_null(out);
        char *big = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&big, &len);
        cr_assert_not_null(f);
        fputs("Num       RefCount Protocol Flags    Type St Inode Path\n", f);
        for (int i = 0; i <= CORDON_UNIX_SOCKETS_MAX; i++)
                fprintf(f, "0000: 00000002 00000000 00010000 0001 01 %d /s/%d\n", i, i);
        cr_assert_eq(fclose(f), 0);
        cr_assert_eq(cordon_proc_net_unix_parse(big, len, &out), -E2BIG);
        cr_assert_null(out);
        free(big);
}

/* ---- capability policies ---- */

Test(lower_protect, git_protected_in_every_workspace_root)
{
        struct cordon_cap_policy *c = calloc(1, sizeof(*c));
        cr_assert_not_null(c);
        cordon_cap_policy_init(c);
        fixture_cap = c; /* applied by lower() through the policy front end */
        const char *a = in_root("a"), *b = in_root("b");
        write_file(fmt("%s/.git/config", a), "");
        write_file(fmt("%s/.git/config", b), "");
        cr_assert_eq(strv_extend(&c->workspace_roots, a), 0);
        cr_assert_eq(strv_extend(&c->workspace_roots, b), 0);
        lower_ok();
        assert_ro_ns_only(fmt("%s/.git/config", a));
        assert_ro_ns_only(fmt("%s/.git/config", b));
        assert_ro_ns_only(fmt("%s/.git/hooks", b));
}
