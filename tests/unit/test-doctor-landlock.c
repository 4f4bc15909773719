/* Unit tests for src/lib/doctor/doctor-landlock.c: the landlock backend's items follow the
 * Landlock ABI and seccomp facts they are given, and what needs a namespace never works. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "cordon/doctor.h"

static struct cordon_doctor_landlock_backend with(int abi, bool filter)
{
        struct cordon_doctor_landlock ll = {.abi = abi, .error = abi > 0 ? 0 : -ENOSYS};
        struct cordon_doctor_seccomp sc = {
            .filter = filter,
            .mode = 0,
            .actions = filter ? CORDON_SECCOMP_ACTION_USER_NOTIF | CORDON_SECCOMP_ACTION_ERRNO : 0,
        };
        struct cordon_doctor_landlock_backend b;
        memset(&b, 0xa5, sizeof(b));
        cordon_doctor_check_landlock_backend(&ll, &sc, &b);
        return b;
}

#define F(b, item) ((b).features[CORDON_DOCTOR_LL_##item])

Test(doctor_landlock, items_named_in_order_with_notes)
{
        static const char *const names[] = {
            "tmpdir",   "tmp",  "shm",    "pty",         "scope",     "tcp",          "proxied",
            "filtered", "proc", "passwd", "home_seeded", "protected", "home_scratch", "unix"};
        struct cordon_doctor_landlock_backend b = with(7, true);
        cr_assert(b.usable);
        for (size_t i = 0; i < _CORDON_DOCTOR_LL_MAX; i++) {
                cr_expect_str_eq(b.features[i].name, names[i]);
                cr_expect(b.features[i].what && *b.features[i].what, "%s: no description",
                          names[i]);
                cr_expect(*b.features[i].note, "%s: no note", names[i]);
                /* A note that fills the buffer was cut short. */
                cr_expect_lt(strlen(b.features[i].note), sizeof(b.features[i].note) - 1, "%s",
                             names[i]);
        }
}

Test(doctor_landlock, abi_decides_scope_tcp_and_proxied)
{
        struct cordon_doctor_landlock_backend b = with(7, true);
        cr_expect(F(b, TMPDIR).works);
        cr_expect(F(b, SCOPE).works);
        cr_expect(F(b, TCP).works);
        /* proxied also needs the notifications, which this machine's kernel decides. */
        cr_expect_eq(F(b, PROXIED).works, F(b, SHM).works);
        if (!F(b, PROXIED).works)
                cr_expect(strstr(F(b, PROXIED).note, "seccomp user notification") != NULL, "%s",
                          F(b, PROXIED).note);

        b = with(5, true);
        cr_expect(!F(b, SCOPE).works);
        cr_expect(strstr(F(b, SCOPE).note, "ABI 6") != NULL, "%s", F(b, SCOPE).note);
        cr_expect(F(b, TCP).works);
        cr_expect_eq(F(b, PROXIED).works, F(b, SHM).works);

        b = with(3, true);
        cr_expect(F(b, TMPDIR).works);
        cr_expect(!F(b, TCP).works);
        cr_expect(!F(b, PROXIED).works);
        cr_expect(strstr(F(b, PROXIED).note, "ABI 4") != NULL, "%s", F(b, PROXIED).note);

        /* Without seccomp filters there is no socket rule for proxied, and no notification. */
        b = with(7, false);
        cr_expect(!F(b, PROXIED).works);
        cr_expect(!F(b, SHM).works);
        cr_expect(!F(b, PTY).works);
        cr_expect(strstr(F(b, SHM).note, "needs Linux 5.14 seccomp user notification") != NULL,
                  "%s", F(b, SHM).note);
}

Test(doctor_landlock, shm_and_pty_go_together)
{
        struct cordon_doctor_landlock_backend b = with(7, true);
        cr_expect_eq(F(b, SHM).works, F(b, PTY).works);
        if (!F(b, SHM).works)
                cr_expect(strstr(F(b, PTY).note, "needs Linux 5.14 seccomp user notification") !=
                              NULL,
                          "%s", F(b, PTY).note);
}

Test(doctor_landlock, unix_sockets_named_where_refused)
{
        /* Before Landlock ABI 9 proxied lets unix sockets reach only the command's own, and
         * tmux (named in the pty item) works there; isolated never admits them. */
        struct cordon_doctor_landlock_backend b = with(7, true);
        if (F(b, PROXIED).works) {
                cr_expect(strstr(F(b, PROXIED).note, "reach only those the command bound itself") !=
                              NULL,
                          "%s", F(b, PROXIED).note);
                cr_expect(strstr(F(b, PROXIED).note, "ABI 9") != NULL, "%s", F(b, PROXIED).note);
        }
        if (F(b, PTY).works) {
                cr_expect(strstr(F(b, PTY).note, "tmux also needs a unix socket, which network "
                                                 "mode isolated refuses") != NULL,
                          "%s", F(b, PTY).note);
                cr_expect(strstr(F(b, PTY).note, "proxied") == NULL, "%s", F(b, PTY).note);
        }
        b = with(9, true);
        if (F(b, PROXIED).works)
                cr_expect(strstr(F(b, PROXIED).note, "a unix socket's connect() is refused") !=
                              NULL,
                          "%s", F(b, PROXIED).note);
        if (F(b, PTY).works) {
                cr_expect(strstr(F(b, PTY).note, "isolated refuses") != NULL, "%s", F(b, PTY).note);
                cr_expect(strstr(F(b, PTY).note, "proxied") == NULL, "%s", F(b, PTY).note);
        }
}

Test(doctor_landlock, host_unix_sockets_kept_out)
{
        /* Before ABI 9 only the notifications keep them out while the command's own work (the
         * shm item rests on the same machinery); from ABI 9 Landlock does it by path. */
        struct cordon_doctor_landlock_backend b = with(7, true);
        cr_expect_eq(F(b, UNIX).works, F(b, SHM).works);
        if (F(b, UNIX).works)
                cr_expect(strstr(F(b, UNIX).note, "open and proxied") != NULL &&
                              strstr(F(b, UNIX).note, "munge") != NULL,
                          "%s", F(b, UNIX).note);
        else
                cr_expect(strstr(F(b, UNIX).note, "refuses socket(AF_UNIX)") != NULL, "%s",
                          F(b, UNIX).note);
        b = with(9, true);
        cr_expect(F(b, UNIX).works);
        cr_expect(strstr(F(b, UNIX).note, "ABI 9") != NULL, "%s", F(b, UNIX).note);
        b = with(7, false);
        cr_expect(!F(b, UNIX).works);
        cr_expect(strstr(F(b, UNIX).note, "needs seccomp filters") != NULL, "%s", F(b, UNIX).note);
}

Test(doctor_landlock, what_needs_a_namespace_never_works)
{
        for (int abi = 1; abi <= 8; abi++) {
                struct cordon_doctor_landlock_backend b = with(abi, true);
                cr_expect(!F(b, TMP).works, "abi %d", abi);
                cr_expect(!F(b, FILTERED).works, "abi %d", abi);
                cr_expect(!F(b, PROC).works, "abi %d", abi);
                cr_expect(!F(b, PASSWD).works, "abi %d", abi);
                cr_expect(!F(b, HOME_SEEDED).works, "abi %d", abi);
                cr_expect(!F(b, PROTECTED).works, "abi %d", abi);
                cr_expect(!F(b, HOME_SCRATCH).works, "abi %d", abi);
        }
}

Test(doctor_landlock, nothing_works_without_landlock)
{
        struct cordon_doctor_landlock_backend b = with(0, true);
        cr_expect(!b.usable);
        for (size_t i = 0; i < _CORDON_DOCTOR_LL_MAX; i++) {
                cr_expect(!b.features[i].works, "%s", b.features[i].name);
                cr_expect(strstr(b.features[i].note, "Landlock is unavailable") != NULL, "%s",
                          b.features[i].note);
        }
}
