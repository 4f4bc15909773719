/* Unit tests for src/serve/serve-peer.c: the parsers of /proc text the peer check decides on,
 * and the check itself on a socketpair (our own process: allowed). */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve/serve-peer.h"
#include "shared/macro.h"

Test(serve_peer, cgroup_v2_plain_is_not_cordon)
{
        cr_assert_not(
            serve_peer_cgroup_is_cordon("0::/user.slice/user-1000.slice/session-3.scope\n"));
        cr_assert_not(serve_peer_cgroup_is_cordon("0::/\n"));
        cr_assert_not(serve_peer_cgroup_is_cordon(""));
}

Test(serve_peer, cgroup_component_starting_cordon_is_cordon)
{
        cr_assert(serve_peer_cgroup_is_cordon("0::/user.slice/cordon-1234/cmd\n"));
        cr_assert(serve_peer_cgroup_is_cordon("0::/cordon-x\n"));
        cr_assert(serve_peer_cgroup_is_cordon("0::/a//cordon-sandbox\n"));
        /* cgroup v1: any hierarchy's line counts. */
        cr_assert(serve_peer_cgroup_is_cordon("9:name=systemd:/\n4:memory:/cordon-9/x\n0::/\n"));
        /* The last line without its newline. */
        cr_assert(serve_peer_cgroup_is_cordon("0::/\n4:pids:/p/cordon-1"));
}

Test(serve_peer, cgroup_cordon_elsewhere_in_a_component_is_not)
{
        cr_assert_not(serve_peer_cgroup_is_cordon("0::/my-cordon-1/x\n"));
        cr_assert_not(serve_peer_cgroup_is_cordon("0::/cordon/x\n"));
        cr_assert_not(serve_peer_cgroup_is_cordon("0::/cordonx\n"));
        /* "cordon-" in the controllers field is not a path. */
        cr_assert_not(serve_peer_cgroup_is_cordon("1:name=cordon-x:/\n"));
}

Test(serve_peer, cgroup_malformed_line_fails_closed)
{
        cr_assert(serve_peer_cgroup_is_cordon("garbage\n"));
        cr_assert(serve_peer_cgroup_is_cordon("0:/\n"));
        cr_assert(serve_peer_cgroup_is_cordon("0::relative\n"));
        cr_assert(serve_peer_cgroup_is_cordon("0::/\n\n"));
}

Test(serve_peer, status_name_and_ppid)
{
        char name[32];
        pid_t ppid = -1;
        cr_assert_eq(serve_peer_status_parse("Name:\tcordon-reaper\nUmask:\t0022\nState:\tS "
                                             "(sleeping)\nTgid:\t7\nPid:\t7\nPPid:\t6\n",
                                             name, sizeof(name), &ppid),
                     0);
        cr_assert_str_eq(name, SERVE_PEER_REAPER_COMM);
        cr_assert_eq(ppid, 6);
        cr_assert_eq(serve_peer_status_parse("Name:\tinit\nPPid:\t0\n", name, sizeof(name), &ppid),
                     0);
        cr_assert_eq(ppid, 0);
}

Test(serve_peer, status_name_cut_to_buffer)
{
        char name[7];
        pid_t ppid;
        cr_assert_eq(
            serve_peer_status_parse("Name:\tcordon-reaper\nPPid:\t1\n", name, sizeof(name), &ppid),
            0);
        cr_assert_str_eq(name, "cordon");
}

Test(serve_peer, status_missing_or_bad_fields)
{
        char name[32];
        pid_t ppid;
        cr_assert_eq(serve_peer_status_parse("Name:\tx\n", name, sizeof(name), &ppid), -EBADMSG);
        cr_assert_eq(serve_peer_status_parse("PPid:\t1\n", name, sizeof(name), &ppid), -EBADMSG);
        cr_assert_eq(serve_peer_status_parse("Name:\tx\nPPid:\t-1\n", name, sizeof(name), &ppid),
                     -EBADMSG);
        cr_assert_eq(serve_peer_status_parse("Name:\tx\nPPid:\t12x\n", name, sizeof(name), &ppid),
                     -EBADMSG);
        cr_assert_eq(serve_peer_status_parse("Name:\tx\nPPid:\t\n", name, sizeof(name), &ppid),
                     -EBADMSG);
        cr_assert_eq(serve_peer_status_parse("", name, sizeof(name), &ppid), -EBADMSG);
}

/* The whole check on a socketpair: the peer is this test process, our uid, our namespaces. A
 * test run inside a cordon sandbox would be refused, rightly; the reason then says which rule. */
Test(serve_peer, check_allows_ourselves)
{
        int sv[2];
        char why[256] = "";
        cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        int r = serve_peer_check(sv[0], why, sizeof(why));
        cr_assert_eq(r, 1, "refused: %s (%d)", why, r);
        close(sv[0]);
        close(sv[1]);
}
