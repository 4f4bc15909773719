/* Internals shared by the escape-sequence filter's parser (term-filter.c) and its record of the
 * user's terminal (term-state.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "lib/terminal/term-filter.h"

/* The parser's states (cordon_term_filter.state). */
enum {
        ST_GROUND,
        ST_C2,           /* text: a C2 byte is held, which may start an encoded C1 control */
        ST_ESC,          /* hold: ESC */
        ST_ESC_INT,      /* hold: ESC and intermediates */
        ST_ESC_DROP,     /* an over-long ESC sequence: dropped up to its final byte */
        ST_CSI,          /* hold: CSI and what followed */
        ST_CSI_DROP,     /* an over-long or dropped CSI: dropped up to its final byte */
        ST_OSC_NUM,      /* hold: OSC and the digits of its number */
        ST_STR,          /* inside a string that is passed on */
        ST_STR_ESC,      /* ... after an ESC in it */
        ST_STR_DROP,     /* inside a string that is dropped */
        ST_STR_DROP_ESC, /* ... after an ESC in it */
};

enum { STR_OSC, STR_DCS, STR_SOS, STR_PM, STR_APC };

#define BIT(n) (UINT64_C(1) << (n))
/* Bits of cordon_term_filter.dirty: 0..31 the DEC modes of term-state.c's table, then these. */
#define D_ANSI(i)      BIT(32 + (i))
#define D_KEYPAD       BIT(40) /* DECKPAM (ESC =) */
#define D_CHARSET      BIT(41) /* a character set designated or shifted */
#define D_SCROLL       BIT(42) /* a scrolling region (DECSTBM) */
#define D_CURSOR_STYLE BIT(43) /* DECSCUSR */
#define D_SGR          BIT(44) /* graphic rendition other than the default */

/* A parsed CSI sequence. */
struct csi {
        uint8_t prefix; /* '<', '=', '>', '?' or 0 */
        uint8_t inter;  /* the first intermediate, or 0 */
        uint8_t final;
        bool sub;    /* ':' sub-parameters were used */
        unsigned np; /* parameters kept (at most ELEMENTSOF(p)) */
        int p[16];   /* -1: left out */
        /* More parameters came than p[] keeps: what the rest change is unknown, and the state
         * tracking must assume the worst (every mode it knows touched). */
        bool truncated;
};

/* The kitty keyboard mode stack of the screen shown: each screen has its own. */
static inline uint8_t *cordon_term_kitty_stack(struct cordon_term_filter *f)
{
        return f->alt_screen ? &f->kitty_alt : &f->kitty_main;
}

/* Records what a CSI sequence that reaches the terminal changes (term-state.c). */
void cordon_term_track_csi(struct cordon_term_filter *f, const struct csi *q);
