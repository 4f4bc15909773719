/* The escape-sequence filter on the sandbox's terminal output: what the inside writes may not
 * read the user's terminal (clipboard, reports) or change what outlives the sandbox (title,
 * palette, encoding); modes it turns on are turned off again at the end. Pure code, no I/O. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest sequence the filter holds back before it has decided on it: a longer one is
 * dropped whole. cordon_term_filter_output() writes at most this much more than it reads. */
#define CORDON_TERM_FILTER_HOLD_MAX 256

/* The most cordon_term_filter_finish() writes. */
#define CORDON_TERM_FILTER_FINISH_MAX 512

/* At most this many answers to passed queries (cursor position, primary device attributes) are
 * awaited at a time; further such queries are dropped until some are answered. */
#define CORDON_TERM_FILTER_PENDING_MAX 16

/* Fields are private. Embed it; it needs no clearing. Not thread-safe. */
struct cordon_term_filter {
        bool passthrough; /* relay every byte; modes are still tracked */
        uint8_t state;
        uint8_t str_kind;  /* which string (OSC, DCS, ...) the string states are in */
        uint8_t utf8_left; /* continuation bytes still expected in text */
        bool utf8_c2;      /* the open character began with C2, no continuation yet */
        uint8_t
            utf8_before;  /* utf8_left before the held sequence, which the terminal may not see */
        bool c2_before;   /* utf8_c2 likewise */
        uint16_t osc_num; /* the OSC's number while it is read */
        uint8_t osc_digits;
        uint8_t last; /* the previous byte of a string (for C2 9C, a UTF-8 ST) */
        uint16_t hold_len;
        uint8_t hold[CORDON_TERM_FILTER_HOLD_MAX];
        /* What the inside changed that outlives it, as bits (see term-filter.c). */
        uint64_t dirty;
        uint8_t modkeys_dirty; /* xterm modifyOtherKeys and friends, resource 0..7 */
        uint8_t kitty_main;    /* kitty keyboard flags pushed on the main screen */
        uint8_t kitty_alt;     /* ... and on the alternate screen */
        uint8_t cpr_pending;   /* cursor position reports asked for, not yet seen */
        uint8_t da_pending;    /* primary device attributes asked for, not yet seen */
        uint8_t in_state;      /* the scan of the user's input for those answers */
        bool in_private;       /* that scan saw a '?' in the current CSI */
        bool alt_screen;       /* the alternate screen is on, as far as the filter saw */
};

/* Starts @f in the ground state. @passthrough relays every byte unchanged (the modes the
 * inside turns on are still tracked for cordon_term_filter_finish()). */
void cordon_term_filter_init(struct cordon_term_filter *f, bool passthrough);

/* Filters @n bytes of the inside's output from @in into @out and returns how many bytes it
 * wrote: at most @n + CORDON_TERM_FILTER_HOLD_MAX. A sequence split across calls is held in @f
 * until it is complete. Each output byte is written only after the input byte at the same offset
 * was read, so @out may be @in - CORDON_TERM_FILTER_HOLD_MAX (filtering in place with that much
 * room in front); otherwise the two must not overlap. Never fails. */
size_t cordon_term_filter_output(struct cordon_term_filter *f, const uint8_t *in, size_t n,
                                 uint8_t *out);

/* Scans @n bytes the user's terminal sent (keyboard input and answers) for the answers to the
 * queries the filter let through, so it knows which are still outstanding. */
void cordon_term_filter_input(struct cordon_term_filter *f, const uint8_t *in, size_t n);

/* True when an answer to a query the filter passed has not been seen in the input yet. */
bool cordon_term_filter_awaits_answer(const struct cordon_term_filter *f);

/* At the end: writes to @out what leaves the user's terminal as the inside found it: closes a
 * string or sequence left open, leaves the alternate screen, shows the cursor, turns off mouse
 * reporting, focus events, bracketed paste and the other modes the inside turned on, resets
 * the scrolling region, the character sets and the colours. Only what the inside changed is
 * reset, so a command that changed nothing adds no bytes. Returns the length, at most
 * CORDON_TERM_FILTER_FINISH_MAX. @f is back in its initial state afterwards. */
size_t cordon_term_filter_finish(struct cordon_term_filter *f,
                                 uint8_t out[CORDON_TERM_FILTER_FINISH_MAX]);
