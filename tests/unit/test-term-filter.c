/* Unit tests for src/lib/terminal/term-filter.c: what passes byte for byte, what is dropped (each
 * kind of sequence, in 7-bit, raw 8-bit and UTF-8 encoded C1 forms, split across reads at every
 * offset), over-long sequences, the answers awaited, and the reset written at the end. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/terminal/term-filter.h"
#include "shared/macro.h"

#define OUT_MAX 4096

/* Filters @in in one piece, byte by byte, split at every offset into two reads, and in place
 * (the output in front of the input, as the relay does); all must agree. Returns the output as
 * a static string (NUL-terminated; the tests' strings have no NUL). */
static const char *filter_n(const char *in, size_t n, bool passthrough)
{
        static char out[OUT_MAX];
        static uint8_t buf[OUT_MAX + CORDON_TERM_FILTER_HOLD_MAX];
        struct cordon_term_filter f;
        cr_assert_lt(n + CORDON_TERM_FILTER_HOLD_MAX, OUT_MAX);

        cordon_term_filter_init(&f, passthrough);
        size_t len = cordon_term_filter_output(&f, (const uint8_t *)in, n, (uint8_t *)out);
        cr_assert_leq(len, n + CORDON_TERM_FILTER_HOLD_MAX);
        out[len] = 0;

        for (size_t cut = 0; cut <= n; cut++) {
                char o[OUT_MAX];
                cordon_term_filter_init(&f, passthrough);
                size_t k = cordon_term_filter_output(&f, (const uint8_t *)in, cut, (uint8_t *)o);
                k += cordon_term_filter_output(&f, (const uint8_t *)in + cut, n - cut,
                                               (uint8_t *)o + k);
                cr_assert(k == len && memcmp(o, out, len) == 0, "split at %zu differs", cut);
        }
        char o[OUT_MAX];
        size_t k = 0;
        cordon_term_filter_init(&f, passthrough);
        for (size_t i = 0; i < n; i++)
                k += cordon_term_filter_output(&f, (const uint8_t *)in + i, 1, (uint8_t *)o + k);
        cr_assert(k == len && memcmp(o, out, len) == 0, "byte by byte differs");

        memcpy(buf + CORDON_TERM_FILTER_HOLD_MAX, in, n);
        cordon_term_filter_init(&f, passthrough);
        k = cordon_term_filter_output(&f, buf + CORDON_TERM_FILTER_HOLD_MAX, n, buf);
        cr_assert(k == len && memcmp(buf, out, len) == 0, "in place differs");
        return out;
}

static const char *filter(const char *in)
{
        return filter_n(in, strlen(in), false);
}

#define DROPPED(seq)                                                                               \
        cr_assert_str_eq(filter("a" seq "b"), "ab", "not dropped: %s", #seq);                      \
        cr_assert_str_eq(filter_n("a" seq "b", strlen("a" seq "b"), true), "a" seq "b")
#define PASSED(seq) cr_assert_str_eq(filter("a" seq "b"), "a" seq "b", "not passed: %s", #seq)

Test(term_filter, text_and_formatting_pass_unchanged)
{
        PASSED("plain text\r\n\ttabs\b and bells\a");
        PASSED("\x1b[1;31mred\x1b[0m \x1b[38;2;10;20;30mrgb\x1b[38:5:1m\x1b[m");
        PASSED("\x1b[H\x1b[2J\x1b[10;20H\x1b[K\x1b[3A\x1b[?25l\x1b[?25h");
        PASSED("\x1b[?1049h\x1b[?1000h\x1b[?1006h\x1b[?2004h\x1b[?1h\x1b=\x1b>");
        PASSED("\x1b(0lqk\x1b(B\x1b"
               "7\x1b"
               "8\x1b"
               "c\x1bM\x1b[5 q\x1b[>1u\x1b[<u");
        PASSED("UTF-8: \xc3\xa9t\xc3\xa9 \xe2\x80\x94 \xe2\x86\x92 \xd0\x9d \xf0\x9f\x98\x80");
        PASSED("\x1b]8;;https://example.com/\x1b\\link\x1b]8;;\x1b\\");
        PASSED("\x1b]8;id=1;file:///tmp/x\alink\x1b]8;;\a");
        PASSED("\x1b[6n\x1b[c\x1b[0c\x1b[?6n");
}

Test(term_filter, clipboard_and_other_osc_dropped)
{
        DROPPED("\x1b]52;c;aGFjaw==\a");
        DROPPED("\x1b]52;c;?\a");
        DROPPED("\x1b]52;c;?\x1b\\");
        DROPPED("\x9d"
                "52;c;?\x9c");
        DROPPED("\xc2\x9d"
                "52;c;?\xc2\x9c");
        DROPPED("\x1b]0;a title\a");
        DROPPED("\x1b]2;a title\x1b\\");
        DROPPED("\x1b]2;\xd0\x9c\xd0\x9c title with 9c inside\a");
        DROPPED("\x1b]11;?\a");
        DROPPED("\x1b]10;?\x1b\\");
        DROPPED("\x1b]4;1;?\a");
        DROPPED("\x1b]4;1;rgb:ff/00/00\a");
        DROPPED("\x1b]7;file:///home\a");
        DROPPED("\x1b]1337;File=name=eA==:eA==\a");
        DROPPED("\x1b]5522;type=read\a");
        DROPPED("\x1b]777;notify;x;y\a");
        DROPPED("\x1b]lold title\x1b\\");
        DROPPED("\x1b]\a");
        DROPPED("\x1b]8\a");
        DROPPED("\x1b]08;;x\a"); /* only "8" itself */
        /* An OSC 52 inside an unfinished one is still an OSC 52. */
        cr_assert_str_eq(filter("\x1b]2;x\x1b]52;c;?\aZ"), "Z");
}

Test(term_filter, strings_dropped)
{
        DROPPED("\x1bP$qm\x1b\\");    /* DECRQSS */
        DROPPED("\x1bP+q544e\x1b\\"); /* XTGETTCAP */
        /* tmux passthrough: to a terminal, the first ESC ends the DCS and the OSC 52 inside
         * is one of its own, dropped too (the ST after it is left, a no-op). */
        cr_assert_str_eq(filter("a\x1bPtmux;\x1b\x1b]52;c;?\a\x1b\\b"), "a\x1b\\b");
        DROPPED("\x90$qm\x9c");
        DROPPED("\xc2\x90$qm\xc2\x9c");
        DROPPED("\x1b_Gf=100,t=f;L2V0Yy9wYXNzd2Q=\x1b\\"); /* kitty graphics from a file */
        DROPPED("\x1b^privacy\x1b\\");
        DROPPED("\x1bXsos\x1b\\");
        /* screen's and tmux's window title: the text is the title, not output. */
        DROPPED("\x1bkevil title\x1b\\");
        cr_assert_str_eq(filter("a\x1bkevil\x1b\\b"), "ab");
        DROPPED("\x1bP0;1|17/ab\x1b\\"); /* DECUDK */
}

Test(term_filter, reports_and_state_changes_dropped)
{
        DROPPED("\x1b[5n");
        DROPPED("\x1b[?15n");
        DROPPED("\x1b[?996n");
        DROPPED("\x1b[>c");
        DROPPED("\x1b[>0c");
        DROPPED("\x1b[=c");
        DROPPED("\x1b[14t");
        DROPPED("\x1b[18t");
        DROPPED("\x1b[21t");
        DROPPED("\x1b[8;100;100t");
        DROPPED("\x1b[22;0t");
        DROPPED("\x1b[?2004$p");
        DROPPED("\x1b[4$p");
        DROPPED("\x1b[>q");
        DROPPED("\x1b[>0q");
        DROPPED("\x1b[?u");
        DROPPED("\x1b[1$u");
        DROPPED("\x1b[?4m");
        DROPPED("\x1b[?1;1S");
        DROPPED("\x1b[x");
        DROPPED("\x1b[1;1;1;1;1*y");
        DROPPED("\x1b[1$w");
        DROPPED("\x1b[1'z");
        DROPPED("\x1b['|");
        DROPPED("\x1b[5i");
        DROPPED("\x1b[132$|");
        DROPPED("\x1b[62;1\"p");
        DROPPED("\x1b[#R");
        DROPPED("\x9b"
                "5n");
        DROPPED("\xc2\x9b"
                "5n");
        DROPPED("\x1bZ");
        DROPPED("\x9a");
        DROPPED("\x1b%G");
        DROPPED("\x1b G");
        /* =u changes the top of the kitty stack: only after a push of our own. */
        DROPPED("\x1b[=1u");
        PASSED("\x1b[>1u\x1b[=1u");
}

Test(term_filter, malformed_and_interrupted)
{
        /* A C0 control inside a sequence is carried out; CAN cancels, ESC restarts. */
        cr_assert_str_eq(filter("\x1b[1\n2J"), "\n\x1b[12J");
        cr_assert_str_eq(filter("\x1b[5\x18n"), "\x18n");
        cr_assert_str_eq(filter("\x1b[5\x1b[6n"), "\x1b[6n");
        cr_assert_str_eq(filter("\x1b[1?5n"), "");
        /* A stray continuation byte that is C1 begins a sequence; one in a character does not. */
        cr_assert_str_eq(filter("\x9b"
                                "5nX"),
                         "X");
        cr_assert_str_eq(filter("\xe2\x9b"
                                "5nX"),
                         "\xe2\x9b"
                         "5nX");
        /* A character cut short, then a C1. */
        cr_assert_str_eq(filter("\xe2\x9d"
                                "52;c;?\aX"),
                         "\xe2\x9d"
                         "52;c;?\aX");
        /* A dropped sequence never reached the terminal: the character it interrupted is
         * open there and takes the byte after it, here too; but C2 9F never forms. */
        cr_assert_str_eq(filter("\xd0\x1b[5n\x9d"
                                "52;c;?\aX"),
                         "\xd0\x9d"
                         "52;c;?\aX");
        cr_assert_str_eq(filter("\xd0\x1b\x9b>u"), "\xd0\x9b>u");
        cr_assert_str_eq(filter("\xd0\x1b\xbc\x9b>u"), "\xd0\xbc\x9b>u");
        cr_assert_str_eq(filter("\xc2\x1b[5n\x9f"
                                "G\x1b\\"),
                         "\xc2G\x1b\\");
        cr_assert_str_eq(filter("\xe2Q\x9d"
                                "52;c;?\aX"),
                         "\xe2QX");
}

Test(term_filter, passed_osc_8_ends_where_the_terminal_sees_its_end)
{
        /* A control character ends it: our BEL stands for it. */
        cr_assert_str_eq(filter("\x1b]8;;x\x01"
                                "52;c;?\a"),
                         "\x1b]8;;x\a"
                         "52;c;?\a");
        /* ESC and not '\': the string ends with our BEL, the ESC is dropped. */
        cr_assert_str_eq(filter("\x1b]8;;x\x1b]52;c;?\a"), "\x1b]8;;x\a]52;c;?\a");
        /* An encoded C1 ends it, and is not passed. */
        cr_assert_str_eq(filter("\x1b]8;;x\xc2\x9d"
                                "52;c;?\a"),
                         "\x1b]8;;x\xc2\a"
                         "52;c;?\a");
        cr_assert_str_eq(filter("\x1b]8;;x\x9d"
                                "52;c;?\a"),
                         "\x1b]8;;x\a"
                         "52;c;?\a");
        cr_assert_str_eq(filter("\x1b]8;;\xc3\xa9\a"), "\x1b]8;;\xc3\xa9\a");
        /* A character cut short by text: a C1 after it is not its continuation. */
        cr_assert_str_eq(filter("\x1b]8;;\xc8;\x9b"
                                "5n\a"),
                         "\x1b]8;;\xc8;\a5n\a");
        /* DEL is dropped, and C2 DEL 9D is an encoded C1 all the same. */
        cr_assert_str_eq(filter("\x1b]8;;x\xc2\x7f\x90"
                                "y\a"),
                         "\x1b]8;;x\xc2\ay\a");
        /* A character cut short by ESC in the string: what follows is not its continuation. */
        cr_assert_str_eq(filter("\x1b]8;;\xd4\x1b\x9e"
                                "x\x1b\\y"),
                         "\x1b]8;;\xd4\ay");
}

Test(term_filter, over_long_sequences_dropped_with_bounded_state)
{
        size_t n = 100000;
        char *in = malloc(n + 16), *out = malloc(n + 16 + CORDON_TERM_FILTER_HOLD_MAX);
        cr_assert(in && out);
        struct cordon_term_filter f;

        /* A CSI longer than the hold: dropped whole. */
        memcpy(in, "a\x1b[", 3);
        memset(in + 3, '1', n);
        memcpy(in + 3 + n, "nb", 2);
        cordon_term_filter_init(&f, false);
        size_t k = cordon_term_filter_output(&f, (uint8_t *)in, n + 5, (uint8_t *)out);
        cr_assert_eq(k, 2);
        cr_assert_eq(memcmp(out, "ab", 2), 0);

        /* A 100 kB OSC 52: dropped as it streams, nothing held. */
        memcpy(in, "a\x1b]52;c;", 8);
        memset(in + 8, 'A', n);
        memcpy(in + 8 + n, "\ab", 2);
        cordon_term_filter_init(&f, false);
        k = 0;
        for (size_t off = 0; off < n + 10; off += 1000) {
                size_t len = n + 10 - off < 1000 ? n + 10 - off : 1000;
                k += cordon_term_filter_output(&f, (uint8_t *)in + off, len, (uint8_t *)out + k);
                cr_assert_leq(f.hold_len, CORDON_TERM_FILTER_HOLD_MAX);
        }
        cr_assert_eq(k, 2);
        cr_assert_eq(memcmp(out, "ab", 2), 0);
        free(in);
        free(out);
}

Test(term_filter, answers_awaited)
{
        struct cordon_term_filter f;
        uint8_t out[64];
        cordon_term_filter_init(&f, false);
        cr_assert_not(cordon_term_filter_awaits_answer(&f));
        cordon_term_filter_output(&f, (const uint8_t *)"\x1b[6n\x1b[c", 7, out);
        cr_assert(cordon_term_filter_awaits_answer(&f));
        cordon_term_filter_input(&f, (const uint8_t *)"typed\x1b[12;", 10);
        cordon_term_filter_input(&f, (const uint8_t *)"1R", 2);
        cr_assert(cordon_term_filter_awaits_answer(&f));
        cordon_term_filter_input(&f, (const uint8_t *)"\x1b[?62;22c", 10);
        cr_assert_not(cordon_term_filter_awaits_answer(&f));

        /* No more than PENDING_MAX outstanding: the rest are dropped. */
        size_t passed = 0;
        for (int i = 0; i < 40; i++)
                passed += cordon_term_filter_output(&f, (const uint8_t *)"\x1b[6n", 4, out);
        cr_assert_eq(passed, 4 * CORDON_TERM_FILTER_PENDING_MAX);
}

static const char *finish_after(const char *in, bool passthrough)
{
        static char out[CORDON_TERM_FILTER_FINISH_MAX + 1];
        uint8_t tmp[OUT_MAX];
        struct cordon_term_filter f;
        cordon_term_filter_init(&f, passthrough);
        cordon_term_filter_output(&f, (const uint8_t *)in, strlen(in), tmp);
        size_t n = cordon_term_filter_finish(&f, (uint8_t *)out);
        out[n] = 0;
        /* Forgotten once written. */
        uint8_t again[CORDON_TERM_FILTER_FINISH_MAX];
        cr_assert_eq(cordon_term_filter_finish(&f, again), 0);
        return out;
}

Test(term_filter, finish_resets_what_was_turned_on)
{
        cr_assert_str_eq(finish_after("hello \x1b[1;31mred\x1b[0m\x1b[?25l\x1b[?25h", false), "");
        cr_assert_str_eq(finish_after("\x1b[?1049h\x1b[?1000;1006h\x1b[?2004h\x1b[?25l", false),
                         "\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1006l\x1b[?2004l");
        cr_assert_str_eq(finish_after("\x1b[?1049h\x1b[?1049l\x1b[?7l\x1b[4h\x1b[12l", false),
                         "\x1b[?7h\x1b[4l\x1b[12h");
        cr_assert_str_eq(
            finish_after("\x1b=\x1b[?1h\x1b[1;10r\x1b[5 q\x1b[>4;2m\x1b(0\x1b[1m", false),
            "\x1b[?1l\x1b>\x1b"
            "7\x1b[r\x1b"
            "8\x1b[0 q\x1b[>4m\x0f\x1b(B\x1b[0m");
        cr_assert_str_eq(finish_after("\x1b[?1004h\x1b[?2026h\x1b[?2048h\x1b[?1003h", false),
                         "\x1b[?1003l\x1b[?1004l\x1b[?2026l\x1b[?2048l");
        /* Kitty keyboard flags: popped per screen, the alternate one while it is shown. */
        cr_assert_str_eq(finish_after("\x1b[>1u\x1b[?1049h\x1b[>1u\x1b[>1u", false),
                         "\x1b[<2u\x1b[?1049l\x1b[<1u");
        /* A reset by the terminal (RIS) forgets all. */
        cr_assert_str_eq(finish_after("\x1b[?1049h\x1b[?1000h\x1b"
                                      "c",
                                      false),
                         "");
        /* In passthrough too, and a string left open is closed. */
        cr_assert_str_eq(finish_after("\x1b[?1000h\x1b]52;c;", true), "\x1b\\\x1b[?1000l");
        cr_assert_str_eq(finish_after("\x1b[?1000h\x1b[12", true), "\x18\x1b[?1000l");
        /* In filter mode a held sequence was never sent; a passed OSC 8 is closed. */
        cr_assert_str_eq(finish_after("\x1b[?1000h\x1b[12", false), "\x1b[?1000l");
        cr_assert_str_eq(finish_after("\x1b]8;;http://x", false), "\x1b\\");
        /* Dropped sequences change nothing; a sequence after a dropped DCS counts. */
        cr_assert_str_eq(finish_after("\x1b[=1u\x1bP1000h\x1b\\", false), "");
        cr_assert_str_eq(finish_after("\x1bPtmux;\x1b\x1b[?1000h\x1b\\", false), "\x1b[?1000l");
}

/* More parameters than the filter keeps: the ones past its limit still reach the terminal, so
 * the reset at the end must cover every mode it knows (the seventeenth here turns the mouse on). */
Test(term_filter, modes_past_the_parameter_limit_are_reset)
{
        const char *seventeenth = "\x1b[?0;0;0;0;0;0;0;0;0;0;0;0;0;0;0;0;1000h";
        for (int passthrough = 0; passthrough <= 1; passthrough++) {
                const char *out = finish_after(seventeenth, passthrough);
                cr_assert(strstr(out, "\x1b[?1000l"), "mouse mode left on (passthrough %d): '%s'",
                          passthrough, out);
                out = finish_after("\x1b[0;0;0;0;0;0;0;0;0;0;0;0;0;0;0;0;31m", passthrough);
                cr_assert(strstr(out, "\x1b[0m"), "colour left on (passthrough %d): '%s'",
                          passthrough, out);
                out = finish_after("\x1b[0;0;0;0;0;0;0;0;0;0;0;0;0;0;0;0;4h", passthrough);
                cr_assert(strstr(out, "\x1b[4l"), "insert mode left on (passthrough %d): '%s'",
                          passthrough, out);
        }
        /* Sixteen are all kept: nothing unknown, nothing extra to reset. */
        cr_assert_str_eq(finish_after("\x1b[?0;0;0;0;0;0;0;0;0;0;0;0;0;0;0;1000h", false),
                         "\x1b[?1000l");
}

Test(term_filter, passthrough_is_byte_for_byte)
{
        char in[4096];
        for (size_t i = 0; i < sizeof(in); i++)
                in[i] = (char)(i * 7 + (i >> 8));
        struct cordon_term_filter f;
        char out[sizeof(in) + CORDON_TERM_FILTER_HOLD_MAX];
        cordon_term_filter_init(&f, true);
        cr_assert_eq(cordon_term_filter_output(&f, (uint8_t *)in, sizeof(in), (uint8_t *)out),
                     sizeof(in));
        cr_assert_eq(memcmp(in, out, sizeof(in)), 0);
}
