/* Unit tests for the terminal side of src/lib/terminal/pty.c's relay: the escape-sequence filter on
 * the way to the user's terminal, and cordon_pty_finish() (modes reset, answers awaited, late input
 * dropped). The fixture (an outer pty playing the user's terminal) is in pty-fixture.h. */
#include "pty-fixture.h"

TestSuite(pty_filter, .init = setup, .fini = teardown, .timeout = 30);

/* Reads the screen until @text is on it (the relay no longer runs). */
#define WATCH(s, ms)                                                                               \
        cr_assert(watch((s), (ms)), "'%s' not on the screen: '%.*s'", (s), (int)screen_len,        \
                  (const char *)screen)

/* A clipboard write and query and a title never reach the user's terminal; colours and the
 * modes do, and those left on are turned off by cordon_pty_finish(). */
Test(pty_filter, clipboard_dropped_modes_reset)
{
        start(outer_slave, run_sh,
              "printf 'a\\033]52;c;aGFjaw==\\007b\\033]52;c;?\\033\\\\c\\033]2;title\\007d'; "
              "printf '\\033[31mred\\033[0m\\033[?1049h\\033[?1000h\\033[?2004h\\033[?25lend'");
        PUMP_TEXT("end", 5000);
        PUMP_DONE(5000);
        cr_assert_eq(reap(5000), 0);
        cr_assert(on_screen("abcd\033[31mred\033[0m\033[?1049h\033[?1000h\033[?2004h\033[?25lend"),
                  "%.*s", (int)screen_len, (const char *)screen);
        cr_assert_not(on_screen("52;"));
        cr_assert_not(on_screen("title"));

        size_t before = screen_len;
        cr_assert_eq(cordon_pty_finish(pty, 2000), 0);
        WATCH("\033[?1049l\033[?25h\033[?1000l\033[?2004l", 2000);
        cr_assert_eq(memcmp(screen + before, "\033[?1049l", 8), 0);
        /* Once only. */
        before = screen_len;
        cr_assert_eq(cordon_pty_finish(pty, 2000), 0);
        cordon_pty_close(pty);
        cr_assert_not(pump(UNTIL_TEXT, "never", 0, 100));
        cr_assert_eq(screen_len, before);
}

/* With passthrough, everything reaches the terminal; the modes are still reset. */
Test(pty_filter, passthrough)
{
        start(outer_slave, run_sh, "printf 'a\\033]52;c;aGFjaw==\\007b\\033[?1000hend'");
        cordon_pty_set_passthrough(pty, true);
        PUMP_TEXT("end", 5000);
        PUMP_DONE(5000);
        cr_assert_eq(reap(5000), 0);
        cr_assert(on_screen("a\033]52;c;aGFjaw==\007b\033[?1000hend"));
        cr_assert_eq(cordon_pty_finish(pty, 2000), 0);
        WATCH("\033[?1000l", 2000);
}

/* A command that changed nothing gets nothing written after it. */
Test(pty_filter, nothing_to_reset)
{
        start(outer_slave, run_sh, "printf '\\033[1mbold\\033[0m plain\\n'");
        PUMP_TEXT("plain\r\n", 5000);
        PUMP_DONE(5000);
        cr_assert_eq(reap(5000), 0);
        size_t before = screen_len;
        cr_assert_eq(cordon_pty_finish(pty, 2000), 0);
        cr_assert_not(pump(UNTIL_TEXT, "never", 0, 100));
        cr_assert_eq(screen_len, before);
}

/* Typed after the command ended: not left for the user's shell. The control is the state
 * before cordon_pty_finish(): the relay did not read it, it was queued. */
Test(pty_filter, late_input_dropped)
{
        start(outer_slave, run_sh, "echo bye");
        PUMP_DONE(5000);
        cr_assert_eq(reap(5000), 0);
        type("ls\r");
        cr_assert_not(pump(UNTIL_TEXT, "never", 0, 100));
        cr_assert_eq(outer_input_queued(), 3);
        cr_assert_eq(cordon_pty_finish(pty, 2000), 0);
        cr_assert_eq(outer_input_queued(), 0);
}

/* A cursor position query passes; its answer, when it comes only after the command ended, is
 * awaited and dropped rather than left for the user's shell to read as typed input. */
Test(pty_filter, late_answer_awaited)
{
        start(outer_slave, run_sh, "printf '\\033[6nq'");
        PUMP_TEXT("\033[6nq", 5000);
        PUMP_DONE(5000);
        cr_assert_eq(reap(5000), 0);
        cr_assert(cordon_term_filter_awaits_answer(&pty->filter));

        /* The "terminal" answers 200 ms later, while cordon_pty_finish() waits. */
        pid_t answer = fork();
        cr_assert_geq(answer, 0);
        if (answer == 0) {
                usleep(200 * 1000);
                _exit(write(outer_master, "\033[7;1R", 6) == 6 ? 0 : 1);
        }
        cr_assert_eq(cordon_pty_finish(pty, 10000), 0);
        int status;
        cr_assert_eq(waitpid(answer, &status, 0), answer);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        cr_assert_eq(outer_input_queued(), 0);
        cr_assert_not(cordon_term_filter_awaits_answer(&pty->filter));
}

/* An answer that never comes: cordon_pty_finish() gives up at its deadline. */
Test(pty_filter, answer_wait_bounded)
{
        start(outer_slave, run_sh, "printf '\\033[c'");
        PUMP_DONE(5000);
        cr_assert_eq(reap(5000), 0);
        int64_t t0 = now_ms();
        cr_assert_eq(cordon_pty_finish(pty, 300), 0);
        int64_t took = now_ms() - t0;
        cr_assert(took >= 250 && took < 3000, "took %lld ms", (long long)took);
}
