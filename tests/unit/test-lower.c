/* cordon_settings_lower(): the policy's shape, the project directory, binds, devices, passwd
 * and environment. The fixture is in lower-fixture.h. */
#include "lower-fixture.h"

TestSuite(lower, .init = setup, .fini = teardown);

/* ---- the basic shape ---- */

Test(lower, defaults_give_a_valid_policy)
{
        lower_ok();
        cr_assert_str_eq(p->project_dir, project);
        cr_assert_str_eq(p->cwd, project);
        cr_assert_str_eq(p->home_dir, home);
        cr_assert_eq(p->identity.uid, h.uid);
        cr_assert_eq(p->identity.gid, h.gid);
        cr_assert_str_eq(p->identity.hostname, "cordon");
        cr_assert_eq(p->net_mode, CORDON_NET_FILTERED, "the spec's default");
        cr_assert_eq(p->net.fallback, CORDON_NET_FALLBACK_STRICTER);
        cr_assert_not_null(p->net.rules, "the floor at least");

        const struct cordon_fs_rule *proj = rule(project, CORDON_ACCESS_RW);
        cr_assert_not_null(proj, "the project is writable");
        cr_assert_str_eq(proj->host, project);
        cr_assert_str_eq(proj->origin, "working directory");

        cr_assert_not_null(rule("/tmp", CORDON_ACCESS_TMPFS), "PRIVATE_TMP");
        cr_assert_not_null(rule("/dev", CORDON_ACCESS_DEV));
        cr_assert_not_null(rule("/proc", CORDON_ACCESS_PROC));
        const struct cordon_fs_rule *sys = rule("/proc/sys", CORDON_ACCESS_RO);
        cr_assert_not_null(sys);
        cr_assert_null(sys->host, "/proc/sys is made read-only in place");
        cr_assert_null(rule("/dev/shm", CORDON_ACCESS_RW), "PRIVATE_IPC");
        cr_assert_not_null(rule("/usr", CORDON_ACCESS_RO));
        cr_assert_not_null(rule("/etc", CORDON_ACCESS_RO));
        for (size_t i = 0; i < p->n_fs; i++)
                cr_assert(!p->fs[i].host || !streq(p->fs[i].host, "/") ||
                              p->fs[i].access == CORDON_ACCESS_SYMLINK,
                          "the host root is bound at '%s'", p->fs[i].guest);
}

Test(lower, warnings_may_be_null)
{
        cr_assert_eq(cordon_settings_lower(&s, &h, &p, NULL, NULL), 0);
}

Test(lower, no_private_tmp_or_ipc)
{
        s.private_tmp = false;
        s.private_ipc = false;
        lower_ok();
        const struct cordon_fs_rule *t = rule("/tmp", CORDON_ACCESS_RW);
        cr_assert_not_null(t);
        cr_assert_str_eq(t->host, "/tmp");
        cr_assert_null(rule("/tmp", CORDON_ACCESS_TMPFS));
        cr_assert_not_null(rule("/dev/shm", CORDON_ACCESS_RW));
}

Test(lower, tmp_size_is_carried)
{
        s.limits.tmp_size_bytes = 1 << 20;
        lower_ok();
        cr_assert_eq(p->limits.tmp_size_bytes, 1 << 20);
        cr_assert_not_null(rule("/tmp", CORDON_ACCESS_TMPFS));
}

Test(lower, tmp_size_with_no_tmpfs_refused)
{
        s.limits.tmp_size_bytes = 1 << 20;
        s.private_tmp = false;
        s.home_access = CORDON_HOME_WRITE;
        cr_assert_eq(lower(), -EINVAL);
        cr_assert(strstr(diag.message, "TMP_SIZE"), "%s", diag.message);
        cr_assert_null(p);
        /* Either tmpfs is enough to apply it to. */
        s.home_access = CORDON_HOME_TMPWRITE;
        lower_ok();
}

Test(lower, every_network_mode_resolves)
{
        for (int m = 0; m < (int)CORDON_NET_MODES; m++) {
                s.net_mode = (enum cordon_net_mode)m;
                lower_ok();
                cr_assert_eq((int)p->net_mode, m);
                p = cordon_policy_free(p);
                warnings = strv_free(warnings);
        }
}

Test(lower, bad_network_pattern_named_with_its_origin)
{
        cr_assert_eq(cordon_list_add(&s.net_blocklist, "0x7f000001", "file.conf:3"), 0);
        cr_assert_eq(lower(), -EINVAL);
        cr_assert(strstr(diag.message, "0x7f000001"), "%s", diag.message);
        cr_assert(strstr(diag.message, "file.conf:3"), "%s", diag.message);
        cr_assert_null(p);
}

/* The warning line naming the exceptions that restrict nothing, or NULL. */
static const char *idle_exception_warning(void)
{
        STRV_FOREACH (w, warnings)
                if (strstr(*w, "NETWORK_BLOCKLIST_EXCEPT") && strstr(*w, "nothing"))
                        return *w;
        return NULL;
}

/* An exception no block overlaps restricts nothing: one warning naming it and its origin, and
 * the allow list's spelling; none once a block gives it something to lift (a user's, the
 * default private ranges), and none where the rules decide nothing (open, isolated). */
Test(lower, an_exception_without_a_block_is_named)
{
        s.net_mode = CORDON_NET_PROXIED;
        cr_assert_eq(cordon_list_add(&s.net_blocklist_except, "example.com", "--allow-host"), 0);
        cr_assert_eq(cordon_list_add(&s.net_blocklist_except, "10.1.2.3", "f.conf:2"), 0);
        cr_assert_eq(cordon_list_add(&s.net_blocklist_except, "*.foo.org:443", "f.conf:3"), 0);
        lower_ok();
        const char *w = idle_exception_warning();
        cr_assert_not_null(w);
        cr_expect(strstr(w, "\"example.com\" (--allow-host)"), "%s", w);
        cr_expect(strstr(w, "\"*.foo.org:443\" (f.conf:3)"), "%s", w);
        cr_expect_null(strstr(w, "10.1.2.3"), "it lifts a default private range: %s", w);
        cr_expect(strstr(w, "NETWORK_BLOCKLIST+=('*')"), "%s", w);
        size_t lines = 0;
        STRV_FOREACH (l, warnings)
                lines += strstr(*l, "NETWORK_BLOCKLIST_EXCEPT") != NULL;
        cr_expect_eq(lines, 1, "one line for all of them");
        p = cordon_policy_free(p);
        warnings = strv_free(warnings);

        /* Blocks they are exceptions to: a suffix for the host, `*:443` for the port. */
        cr_assert_eq(cordon_list_add(&s.net_blocklist, "*.com", "--block"), 0);
        cr_assert_eq(cordon_list_add(&s.net_blocklist, "*:443", "--block"), 0);
        lower_ok();
        cr_expect_null(idle_exception_warning(), "%s", idle_exception_warning());
        p = cordon_policy_free(p);
        warnings = strv_free(warnings);

        cordon_list_clear(&s.net_blocklist);
        s.net_mode = CORDON_NET_OPEN;
        lower_ok();
        cr_expect_null(idle_exception_warning());
}

/* ---- the project directory ---- */

Test(lower, project_root_refused)
{
        s.project_dir = strdup("/");
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, "'/'"), "%s", diag.message);
        cr_assert_null(p);
}

Test(lower, project_root_via_cwd_refused)
{
        h.cwd = "/";
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, "'/'"), "%s", diag.message);
}

Test(lower, project_home_refused)
{
        s.project_dir = strdup(home);
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, home), "%s", diag.message);
        cr_assert(strstr(diag.message, "home"), "%s", diag.message);
}

Test(lower, project_home_via_symlink_refused)
{
        cr_assert_eq(symlink(home, in_root("homelink")), 0);
        s.project_dir = strdup(in_root("homelink"));
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, home), "%s", diag.message);
}

Test(lower, project_home_with_trailing_dots_refused)
{
        s.project_dir = strdup(fmt("%s/proj/..", home));
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, home), "%s", diag.message);
}

Test(lower, project_outside_allowed_parents_refused)
{
        mkdir_p(in_root("allowed/ok"));
        mkdir_p(in_root("elsewhere"));
        cordon_list_clear(&s.allowed_project_parents);
        cr_assert_eq(cordon_list_add(&s.allowed_project_parents, in_root("allowed"), "test"), 0);

        s.project_dir = strdup(in_root("elsewhere"));
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, in_root("elsewhere")), "%s", diag.message);
        cr_assert(strstr(diag.message, in_root("allowed")), "lists the parents: %s", diag.message);

        /* A sibling sharing the prefix is not below the parent. */
        mkdir_p(in_root("allowed-not"));
        free(s.project_dir);
        s.project_dir = strdup(in_root("allowed-not"));
        cr_assert_eq(lower(), -EPERM, "%s", diag.message);

        free(s.project_dir);
        s.project_dir = strdup(in_root("allowed/ok"));
        lower_ok();
        cr_assert_str_eq(p->project_dir, in_root("allowed/ok"));
}

Test(lower, project_no_allowed_parents_refused)
{
        cordon_list_clear(&s.allowed_project_parents);
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, project), "%s", diag.message);
}

Test(lower, project_relative_to_cwd)
{
        mkdir_p(fmt("%s/sub", project));
        s.project_dir = strdup("sub");
        lower_ok();
        cr_assert_str_eq(p->project_dir, fmt("%s/sub", project));
        cr_assert_str_eq(p->cwd, fmt("%s/sub", project));
}

Test(lower, project_missing_or_not_a_directory)
{
        s.project_dir = strdup(in_root("home/missing"));
        cr_assert_eq(lower(), -ENOENT);
        cr_assert(strstr(diag.message, "missing"), "%s", diag.message);

        write_file(in_root("home/file"), "x");
        free(s.project_dir);
        s.project_dir = strdup(in_root("home/file"));
        cr_assert_eq(lower(), -ENOTDIR);
}

Test(lower, project_inside_blocked_home_path_refused)
{
        mkdir_p(fmt("%s/.ssh/proj", home));
        s.project_dir = strdup(fmt("%s/.ssh/proj", home));
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, ".ssh"), "%s", diag.message);
        cr_assert_null(p);
}

Test(lower, project_symlink_into_blocked_path_refused)
{
        mkdir_p(fmt("%s/.ssh/work", home));
        cr_assert_eq(symlink(".ssh/work", fmt("%s/work", home)), 0);
        s.project_dir = strdup(fmt("%s/work", home));
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, ".ssh"), "%s", diag.message);
}

Test(lower, project_equal_to_blocked_path_refused)
{
        mkdir_p(fmt("%s/.aws", home));
        s.project_dir = strdup(fmt("%s/.aws", home));
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, ".aws"), "%s", diag.message);
}

Test(lower, project_inside_hidden_path_refused)
{
        mkdir_p(fmt("%s/secret/proj", home));
        cr_assert_eq(cordon_list_add(&s.extra_blocked_paths, fmt("%s/secret", home), "--hide"), 0);
        s.project_dir = strdup(fmt("%s/secret/proj", home));
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, "secret"), "%s", diag.message);
        cr_assert(strstr(diag.message, "--hide"), "names the origin: %s", diag.message);
}

/* ---- binds from the command line ---- */

Test(lower, extra_writable_and_readonly)
{
        mkdir_p(in_root("data"));
        mkdir_p(in_root("cache"));
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("data"), "--ro"), 0);
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, in_root("cache"), "--rw"), 0);
        lower_ok();
        const struct cordon_fs_rule *d = rule(in_root("data"), CORDON_ACCESS_RO);
        cr_assert_not_null(d);
        cr_assert_str_eq(d->origin, "--ro");
        cr_assert_not_null(rule(in_root("cache"), CORDON_ACCESS_RW));
}

/* A missing read-only grant is one warning line naming every such entry and its origin; a
 * missing writable one still refuses; a missing built-in one is skipped without a word. */
Test(lower, missing_readonly_warns_writable_refuses_builtin_skipped)
{
        mkdir_p(in_root("data"));
        cr_assert_eq(symlink(in_root("nothing"), in_root("dangling")), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("absent"), "--ro"), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("data"), "f.conf:2"), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("gone/x"), "f.conf:3"), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("dangling"), "f.conf:4"), 0);
        lower_ok();
        cr_assert_not_null(rule(in_root("data"), CORDON_ACCESS_RO));
        cr_assert_null(rule(in_root("absent"), CORDON_ACCESS_RO));
        cr_assert_null(rule(in_root("dangling"), CORDON_ACCESS_SYMLINK));
        size_t n = 0;
        STRV_FOREACH (w, warnings)
                n += strstr(*w, "READONLY_MOUNTS") != NULL;
        cr_assert_eq(n, 1, "one line for all of them");
        cr_assert(warned(fmt("READONLY_MOUNTS entries not on this host, not shown inside: '%s' "
                             "(from --ro), '%s' (from f.conf:3), '%s' (from f.conf:4, a symlink "
                             "to nothing)",
                             in_root("absent"), in_root("gone/x"), in_root("dangling"))));

        cordon_settings_clear(&s);
        cr_assert_eq(cordon_settings_init_defaults(&s, home), 0);
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, in_root("absent"), "--rw"), 0);
        cr_assert_eq(lower(), -ENOENT);
        cr_assert(strstr(diag.message, "EXTRA_WRITABLE_PATHS entry"), "%s", diag.message);
        cr_assert(strstr(diag.message, "absent"), "%s", diag.message);
        cr_assert(strstr(diag.message, "--rw"), "%s", diag.message);

        cordon_settings_clear(&s);
        cr_assert_eq(cordon_settings_init_defaults(&s, home), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("absent"), "built-in default"), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("dangling"), "built-in default"),
                     0);
        lower_ok();
        cr_assert_not(warned("READONLY_MOUNTS"));
}

/* Only ENOENT is missing: an entry that is there but cannot be resolved refuses. */
Test(lower, readonly_unresolvable_refused)
{
        cr_assert_eq(symlink(in_root("loop"), in_root("loop")), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("loop"), "--ro"), 0);
        cr_assert_eq(lower(), -ELOOP, "%s", diag.message);
        cr_assert(strstr(diag.message, "READONLY_MOUNTS entry"), "%s", diag.message);

        if (getuid() == 0)
                return; /* root searches every directory */
        cordon_settings_clear(&s);
        cr_assert_eq(cordon_settings_init_defaults(&s, home), 0);
        mkdir_p(in_root("locked/in"));
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("locked/in"), "--ro"), 0);
        cr_assert_eq(chmod(in_root("locked"), 0), 0);
        int r = lower();
        cr_assert_eq(chmod(in_root("locked"), 0755), 0);
        cr_assert_eq(r, -EACCES, "%s", diag.message);
        cr_assert(strstr(diag.message, "READONLY_MOUNTS entry"), "%s", diag.message);
}

Test(lower, host_root_bind_refused)
{
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, "/", "--rw"), 0);
        cr_assert_eq(lower(), -EINVAL);
        cr_assert(strstr(diag.message, "root"), "%s", diag.message);

        cordon_settings_clear(&s);
        cr_assert_eq(cordon_settings_init_defaults(&s, home), 0);
        cr_assert_eq(symlink("/", in_root("rootlink")), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("rootlink"), "--ro"), 0);
        cr_assert_lt(lower(), 0, "a symlink to / is refused as well");
}

Test(lower, symlinked_bind_recreates_link)
{
        mkdir_p(in_root("target"));
        cr_assert_eq(symlink("target", in_root("link")), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("link"), "--ro"), 0);
        lower_ok();
        const struct cordon_fs_rule *l = rule(in_root("link"), CORDON_ACCESS_SYMLINK);
        cr_assert_not_null(l);
        cr_assert_str_eq(l->host, "target");
        cr_assert_not_null(rule(in_root("target"), CORDON_ACCESS_RO));
}

Test(lower, flags_override_defaults_for_same_path)
{
        /* A later source wins for the same guest path: --rw of a default read-only mount. */
        mkdir_p(in_root("shared"));
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("shared"), "built-in default"), 0);
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, in_root("shared"), "--rw"), 0);
        lower_ok();
        cr_assert_not_null(rule(in_root("shared"), CORDON_ACCESS_RW));
        cr_assert_null(rule(in_root("shared"), CORDON_ACCESS_RO));
}

/* ---- devices ---- */

Test(lower, device_exposed_and_blacklisted)
{
        cr_assert_eq(cordon_list_add(&s.devices, "/dev/null", "--device"), 0);
        lower_ok();
        const struct cordon_fs_rule *d = rule("/dev/null", CORDON_ACCESS_DEVICE);
        cr_assert_not_null(d);
        cr_assert_str_eq(d->host, "/dev/null");

        cr_assert_eq(cordon_list_add(&s.devices_blacklist, "/dev/nu*", "test"), 0);
        lower_ok();
        cr_assert_null(rule("/dev/null", CORDON_ACCESS_DEVICE));
        /* The device, the pattern that shadows it, and both origins. */
        cr_assert(warned("DEVICES entry '/dev/null' (from --device) is shadowed by "
                         "DEVICES_BLACKLIST entry '/dev/nu*' (from test); not exposed"));
}

/* A match of a pattern is named with the pattern; a directory holding a shadowed node is
 * refused naming the node; a block device and a non-device are refused for what they are. */
Test(lower, device_refusals_say_why)
{
        cr_assert_eq(cordon_list_add(&s.devices, "/dev/nul?", "sandbox.conf:4"), 0);
        cr_assert_eq(cordon_list_add(&s.devices_blacklist, "/dev/null", "admin.conf:2"), 0);
        write_file(in_root("plain"), "");
        cr_assert_eq(cordon_list_add(&s.devices, in_root("plain"), "--device"), 0);
        lower_ok();
        cr_assert(warned("device '/dev/null' (matched by DEVICES entry '/dev/nul?' from "
                         "sandbox.conf:4) is shadowed by DEVICES_BLACKLIST entry '/dev/null' "
                         "(from admin.conf:2)"));
        cr_assert(warned(fmt("DEVICES entry '%s' (from --device) leads to '%s', outside /dev",
                             in_root("plain"), in_root("plain"))));
        cr_assert_not(warned("blacklisted or not a device"));
}

/* BIND_DEV_PTS's shim (kernels before 5.4) adds /dev/pts with origin BIND_DEV_PTS; the default
 * DEVICES_BLACKLIST (an admin's too) shadows it: a warning naming both, never a refusal. */
Test(lower, device_dev_pts_shim_shadowed_does_not_abort)
{
        if (access("/dev/pts", F_OK) < 0)
                cr_skip_test("no /dev/pts here");
        cr_assert_eq(cordon_list_add(&s.devices, "/dev/pts", "BIND_DEV_PTS"), 0);
        lower_ok();
        cr_assert_null(rule("/dev/pts", CORDON_ACCESS_DEVICE));
        cr_assert(warned("DEVICES entry '/dev/pts' (from BIND_DEV_PTS) is shadowed by "
                         "DEVICES_BLACKLIST entry '/dev/pts' (from built-in default)"));
}

/* Device patterns match as glob() does: wildcards in the last component, brackets, no hidden
 * names for a pattern that does not start with '.', and wildcards in a directory component. */
Test(lower, device_patterns_match_like_glob)
{
        static const char *const patterns[] = {"/dev/n*ll", "/dev/[z]ero", "/dev/ful?",
                                               "/dev/*andom", "/d?v/tty"};
        for (size_t i = 0; i < ELEMENTSOF(patterns); i++)
                cr_assert_eq(cordon_list_add(&s.devices, patterns[i], "--device"), 0);
        cr_assert_eq(cordon_list_add(&s.devices, "/dev/*cordon-none", "--device"), 0);
        lower_ok();
        static const char *const want[] = {"/dev/null",   "/dev/zero",    "/dev/full",
                                           "/dev/random", "/dev/urandom", "/dev/tty"};
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                cr_assert_not_null(rule(want[i], CORDON_ACCESS_DEVICE), "%s", want[i]);
        cr_assert_not(warned("/dev/*cordon-none"),
                      "a pattern matching nothing is dropped silently");
        cr_assert_not(warned("/dev/n*ll"));
        cr_assert(strv_contains(p->devices_unmatched, "/dev/*cordon-none (from --device)"),
                  "--dry-run lists it");
}

Test(lower, device_outside_dev_or_missing)
{
        write_file(in_root("fake"), "");
        cr_assert_eq(cordon_list_add(&s.devices, in_root("fake"), "--device"), 0);
        cr_assert_eq(cordon_list_add(&s.devices, "/dev/cordon-no-such-device*", "--device"), 0);
        lower_ok();
        cr_assert_null(rule(in_root("fake"), CORDON_ACCESS_DEVICE));
        cr_assert(warned(in_root("fake")));
        cr_assert_not(warned("cordon-no-such-device"), "a glob matching nothing is silent");
        /* A literal path that does not exist is the same case (/dev/nvidiactl on a machine
         * without the hardware), and so is a dangling link. */
        cr_assert_eq(cordon_list_add(&s.devices, "/dev/cordon-no-such-node", "sandbox.conf:9"), 0);
        lower_ok();
        cr_assert_not(warned("cordon-no-such-node"));
}

/* ---- passwd ---- */

Test(lower, passwd_filtered)
{
        lower_ok();
        const struct cordon_fs_rule *pw = rule("/etc/passwd", CORDON_ACCESS_DATA);
        const struct cordon_fs_rule *gr = rule("/etc/group", CORDON_ACCESS_DATA);
        cr_assert_not_null(pw);
        cr_assert_not_null(gr);
        cr_assert_not_null(rule("/etc/nsswitch.conf", CORDON_ACCESS_DATA));
        cr_assert_null(strstr(pw->host, "someoneelse"), "%s", pw->host);
        cr_assert_not_null(strstr(pw->host, "daemon:x:1:1"), "%s", pw->host);
        cr_assert_not_null(strstr(pw->host, fmt(":x:%u:%u:", (unsigned)h.uid, (unsigned)h.gid)),
                           "the caller resolves: %s", pw->host);
        cr_assert_null(strstr(gr->host, "someoneelse:x:4242"), "%s", gr->host);
        cr_assert_not_null(strstr(gr->host, "wheel:x:10:"), "%s", gr->host);
        cr_assert_not_null(strstr(gr->host, fmt(":x:%u:", (unsigned)h.gid)), "%s", gr->host);
}

/* A caller the files do not list (a directory user): the line comes from NSS or, unknown there
 * too, is made up so that the id still resolves. */
Test(lower, passwd_for_unknown_user)
{
        h.uid = 4243;
        h.gid = 4243;
        lower_ok();
        const struct cordon_fs_rule *pw = rule("/etc/passwd", CORDON_ACCESS_DATA);
        const struct cordon_fs_rule *gr = rule("/etc/group", CORDON_ACCESS_DATA);
        cr_assert_not_null(pw);
        cr_assert_not_null(gr);
        cr_assert_not_null(strstr(pw->host, "user:x:4243:4243::"), "%s", pw->host);
        cr_assert_not_null(strstr(gr->host, "user:x:4243:"), "%s", gr->host);
        cr_assert_eq(p->identity.uid, 4243);
}

/* A caller the files list keeps that line as it is (no NSS lookup). */
Test(lower, passwd_callers_line_from_the_files)
{
        h.uid = 4242;
        h.gid = 4242;
        lower_ok();
        const struct cordon_fs_rule *pw = rule("/etc/passwd", CORDON_ACCESS_DATA);
        const struct cordon_fs_rule *gr = rule("/etc/group", CORDON_ACCESS_DATA);
        cr_assert_not_null(pw);
        cr_assert_not_null(gr);
        cr_assert_not_null(strstr(pw->host, "someoneelse:x:4242:4242::/home/x:/bin/sh\n"), "%s",
                           pw->host);
        cr_assert_not_null(strstr(gr->host, "someoneelse:x:4242:\n"), "%s", gr->host);
        cr_assert_null(strstr(pw->host, "user:x:"), "%s", pw->host);
}

Test(lower, passwd_not_filtered_when_disabled)
{
        s.filter_passwd = false;
        lower_ok();
        cr_assert_null(rule("/etc/passwd", CORDON_ACCESS_DATA));
        cr_assert_null(rule("/etc/nsswitch.conf", CORDON_ACCESS_DATA));
}

Test(lower, passwd_unreadable_refused)
{
        h.passwd_path = in_root("no-such-passwd");
        cr_assert_eq(lower(), -ENOENT);
        cr_assert(strstr(diag.message, "passwd"), "%s", diag.message);
}

/* ---- environment ---- */

Test(lower, environment_filtered_and_counted)
{
        lower_ok();
        cr_assert_eq(p->n_env_blocked, 3, "GH_TOKEN, GITHUB_PAT, SSH_AUTH_SOCK");
        cr_assert_null(env_get("GH_TOKEN"));
        cr_assert_null(env_get("GITHUB_PAT"));
        cr_assert_null(env_get("SSH_AUTH_SOCK"));
        cr_assert_str_eq(env_get("ANTHROPIC_API_KEY"), "sk-allowed", "allow list wins");
        /* The mail stub's directory first (NETWORK_MAIL_BLOCK=auto, the mode is not open). */
        cr_assert_str_eq(env_get("PATH"), "/run/cordon/mail-block:/usr/bin:/bin");
        cr_assert_str_eq(env_get("TERM"), "xterm");
        cr_assert_str_eq(env_get("SANDBOX_ACTIVE"), "1");
        cr_assert_str_eq(env_get("SANDBOX_BACKEND"), "ns");
        cr_assert_str_eq(env_get("PWD"), project);
        STRV_FOREACH (e, p->envp)
                cr_assert(strchr(*e, '='), "'%s' has no '='", *e);
        /* The settings' names, and Slurm's token (the chaperon runs Slurm on the host). */
        cr_assert_eq(p->env_rules.blocked_names.n, s.blocked_env_vars.n + 1);
        cr_assert_not_null(cordon_list_find(&p->env_rules.blocked_names, "SLURM_JWT"));
}

Test(lower, environment_setenv_applied_and_validated)
{
        cr_assert_eq(cordon_list_add(&s.sandbox_env, "TERM=dumb", "--setenv"), 0);
        cr_assert_eq(cordon_list_add(&s.sandbox_env, "NEW=1", "--setenv"), 0);
        lower_ok();
        cr_assert_str_eq(env_get("TERM"), "dumb");
        cr_assert_str_eq(env_get("NEW"), "1");

        cr_assert_eq(cordon_list_add(&s.sandbox_env, "BAD-NAME=1", "sandbox.conf:9"), 0);
        cr_assert_eq(lower(), -EINVAL);
        cr_assert(strstr(diag.message, "BAD-NAME"), "%s", diag.message);
        cr_assert(strstr(diag.message, "sandbox.conf:9"), "%s", diag.message);
}

Test(lower, environment_cannot_fake_sandbox_markers)
{
        cr_assert_eq(cordon_list_add(&s.sandbox_env, "SANDBOX_ACTIVE=0", "--setenv"), 0);
        lower_ok();
        cr_assert_str_eq(env_get("SANDBOX_ACTIVE"), "1");
}

/* SANDBOX_PROFILE and SANDBOX_NETWORK_MODE say what the sandbox is: the caller's own are
 * replaced, SANDBOX_ENV cannot forge them, and no filter rule can remove them. */
Test(lower, environment_names_the_profile_and_network)
{
        cr_assert_eq(strv_extend(&envp, "SANDBOX_PROFILE=unrestricted"), 0);
        cr_assert_eq(strv_extend(&envp, "SANDBOX_NETWORK_MODE=open"), 0);
        h.envp = envp;
        cr_assert_eq(cordon_list_add(&s.sandbox_env, "SANDBOX_PROFILE=forged", "--setenv"), 0);
        cr_assert_eq(cordon_list_add(&s.sandbox_env, "SANDBOX_NETWORK_MODE=open", "--setenv"), 0);
        cr_assert_eq(cordon_list_add(&s.blocked_env_vars, "SANDBOX_PROFILE", "test"), 0);
        cr_assert_eq(cordon_list_add(&s.blocked_env_patterns, "SANDBOX_*", "test"), 0);
        s.profile = CORDON_PROFILE_OS_HARDENED;
        s.net_mode = CORDON_NET_ISOLATED;
        lower_ok();
        cr_assert_str_eq(env_get("SANDBOX_PROFILE"), "os_hardened");
        cr_assert_str_eq(env_get("SANDBOX_NETWORK_MODE"), "isolated");
        size_t n = 0;
        STRV_FOREACH (e, p->envp)
                n += strncmp(*e, "SANDBOX_PROFILE=", 16) == 0;
        cr_assert_eq(n, 1, "one SANDBOX_PROFILE");
}

/* ---- symlinks a sandbox could have planted (issue 11) ---- */

Test(lower, project_through_planted_link_refused)
{
        /* An earlier sandbox of the project left sub -> another project: "-p sub" would hand
         * this run the other one. */
        mkdir_p(fmt("%s/other", home));
        cr_assert_eq(symlink(fmt("%s/other", home), fmt("%s/sub", project)), 0);
        s.project_dir = strdup("sub");
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, fmt("%s/sub", project)), "names the link: %s", diag.message);
        cr_assert(strstr(diag.message, "symlink"), "%s", diag.message);

        /* Control: the same path as a real directory is a fine project. */
        cr_assert_eq(unlink(fmt("%s/sub", project)), 0);
        mkdir_p(fmt("%s/sub", project));
        lower_ok();
        cr_assert_str_eq(p->project_dir, fmt("%s/sub", project));
}

Test(lower, project_parent_of_home_refused)
{
        s.project_dir = strdup(root);
        cr_assert_eq(cordon_list_add(&s.allowed_project_parents, "/", "--allow-parent"), 0);
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, "parent of the home"), "%s", diag.message);
}

Test(lower, rw_and_ro_through_planted_link_refused)
{
        /* sub -> $HOME planted in the project: --rw sub would make all of the home writable. */
        cr_assert_eq(symlink(home, fmt("%s/sub", project)), 0);
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, "sub", "--rw"), 0);
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, fmt("%s/sub", project)), "%s", diag.message);
        cr_assert(strstr(diag.message, "EXTRA_WRITABLE_PATHS"), "%s", diag.message);

        cordon_settings_clear(&s);
        cr_assert_eq(cordon_settings_init_defaults(&s, home), 0);
        mkdir_p(fmt("%s/docs", home));
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, fmt("%s/sub/docs", project), "--ro"), 0);
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, "READONLY_MOUNTS"), "%s", diag.message);
}

Test(lower, link_inside_a_link_target_is_inspected)
{
        /* A link in a directory no sandbox writes (the scratch root contains $HOME, so no
         * project can), to a path through a planted one. */
        cr_assert_eq(symlink(home, fmt("%s/sub", project)), 0);
        cr_assert_eq(symlink(fmt("%s/sub", project), in_root("outer")), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("outer/../outer"), "--ro"), 0);
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, fmt("%s/sub", project)), "%s", diag.message);
}

Test(lower, binds_over_private_mounts_refused)
{
        static const char *const cases[][2] = {
            {"/proc", "--ro"},    {"/proc/self", "--ro"}, {"/dev", "--rw"},
            {"/dev/shm", "--ro"}, {"/dev/null", "--rw"},  {"/tmp", "--rw"},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                cordon_settings_clear(&s);
                cr_assert_eq(cordon_settings_init_defaults(&s, home), 0);
                struct cordon_list *list =
                    streq(cases[i][1], "--ro") ? &s.readonly_mounts : &s.extra_writable_paths;
                cr_assert_eq(cordon_list_add(list, cases[i][0], cases[i][1]), 0);
                cr_assert_eq(lower(), -EINVAL, "%s %s", cases[i][1], cases[i][0]);
                cr_assert(strstr(diag.message, "sandbox's own"), "%s", diag.message);
                cr_assert(strstr(diag.message, cases[i][0]), "%s", diag.message);
        }
        /* Without a private /tmp, binding the host's is what the user asked for. */
        cordon_settings_clear(&s);
        cr_assert_eq(cordon_settings_init_defaults(&s, home), 0);
        s.private_tmp = false;
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, "/tmp", "--rw"), 0);
        lower_ok();
        /* ... and a directory inside the private /tmp may still be bound. */
        cordon_settings_clear(&s);
        cr_assert_eq(cordon_settings_init_defaults(&s, home), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, root, "--ro"), 0);
        lower_ok();
}

Test(lower, links_in_home_and_its_parents_are_followed)
{
        /* No project contains $HOME, so no sandbox wrote a link directly in it (unless the home
         * is writable in this run), even when $HOME lies below an allowed parent as here. */
        mkdir_p(in_root("data/tool"));
        cr_assert_eq(symlink(in_root("data/tool"), fmt("%s/tool", home)), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, fmt("%s/tool", home), "--ro"), 0);
        lower_ok();
        cr_assert_not_null(rule(in_root("data/tool"), CORDON_ACCESS_RO));

        s.home_access = CORDON_HOME_WRITE;
        cr_assert_eq(lower(), -EPERM, "a writable home could have had it planted");
        cr_assert(strstr(diag.message, fmt("%s/tool", home)), "%s", diag.message);
}
