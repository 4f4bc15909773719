/* What the escape-sequence filter remembers of the user's terminal: the modes the inside turned
 * on, to turn them off at the end, and the answers to passed queries still outstanding. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/terminal/term-filter-internal.h"
#include "lib/terminal/term-filter.h"
#include "shared/macro.h"

/* Modes tracked for the reset at the end: DEC private modes (CSI ? N h/l) and their defaults. */
static const struct {
        uint16_t mode;
        bool on; /* its default */
} dec_modes[] = {
    /* The alternate screen first: it is left before anything else is reset. */
    {1049, false}, /* alternate screen, cursor saved */
    {1047, false}, /* alternate screen */
    {47, false},   /* alternate screen (old) */
    {1, false},    /* application cursor keys */
    {5, false},    /* reverse video */
    {6, false},    /* origin mode */
    {7, true},     /* auto-wrap */
    {9, false},    /* X10 mouse reporting */
    {25, true},    /* cursor visible */
    {66, false},   /* application keypad */
    {69, false},   /* left and right margins */
    {1000, false}, /* mouse reporting */
    {1001, false}, /* highlight mouse tracking */
    {1002, false}, /* button-event mouse tracking */
    {1003, false}, /* any-event mouse tracking */
    {1004, false}, /* focus in/out reports */
    {1005, false}, /* UTF-8 mouse encoding */
    {1006, false}, /* SGR mouse encoding */
    {1015, false}, /* urxvt mouse encoding */
    {1016, false}, /* SGR pixel mouse encoding */
    {2004, false}, /* bracketed paste */
    {2026, false}, /* synchronized output */
    {2031, false}, /* colour scheme change reports */
    {2048, false}, /* in-band window resize reports */
};
#define N_ALT_MODES 3
_Static_assert(ELEMENTSOF(dec_modes) <= 32, "dirty has 32 bits for the DEC modes");

/* ANSI modes (CSI N h/l): keyboard lock, insert, local echo (SRM: set means no echo), newline. */
static const struct {
        uint16_t mode;
        bool on;
} ansi_modes[] = {{2, false}, {4, false}, {12, true}, {20, false}};

static void track_dec_mode(struct cordon_term_filter *f, int mode, int how)
{
        for (size_t i = 0; i < ELEMENTSOF(dec_modes); i++) {
                if (dec_modes[i].mode != mode)
                        continue;
                /* how: 1 set, 0 reset, -1 unknown (restored from a saved value) */
                if (how < 0 || (how == 1) != dec_modes[i].on)
                        f->dirty |= BIT(i);
                else
                        f->dirty &= ~BIT(i);
                if (i < N_ALT_MODES && how >= 0)
                        f->alt_screen = how == 1;
                return;
        }
}

/* A mode sequence with more parameters than a struct csi keeps: any mode the filter knows may
 * have been changed by the ones it did not see, so all of them are reset at the end. (Without
 * this, `CSI ? 0;...;0;1000 h` with the mouse mode seventeenth would leave mouse reporting on in
 * the user's shell.) */
static void track_all_modes_unknown(struct cordon_term_filter *f, uint8_t prefix)
{
        if (prefix == '?')
                for (size_t i = 0; i < ELEMENTSOF(dec_modes); i++)
                        f->dirty |= BIT(i);
        else if (!prefix)
                for (size_t i = 0; i < ELEMENTSOF(ansi_modes); i++)
                        f->dirty |= D_ANSI(i);
}

static void track_ansi_mode(struct cordon_term_filter *f, int mode, bool set)
{
        for (size_t i = 0; i < ELEMENTSOF(ansi_modes); i++)
                if (ansi_modes[i].mode == mode) {
                        if (set != ansi_modes[i].on)
                                f->dirty |= D_ANSI(i);
                        else
                                f->dirty &= ~D_ANSI(i);
                }
}

/* Records what a CSI sequence that reaches the terminal changes. */
void cordon_term_track_csi(struct cordon_term_filter *f, const struct csi *q)
{
        switch (q->final) {
        case 'n':
                if (q->np == 1 && q->p[0] == 6 && !q->inter && f->cpr_pending < UINT8_MAX)
                        f->cpr_pending++;
                break;
        case 'c':
                if (!q->prefix && !q->inter && (q->np == 0 || (q->np == 1 && q->p[0] <= 0)) &&
                    f->da_pending < UINT8_MAX)
                        f->da_pending++;
                break;
        case 'h':
        case 'l':
                if (q->inter)
                        break;
                if (q->truncated)
                        track_all_modes_unknown(f, q->prefix);
                for (unsigned i = 0; i < q->np; i++) {
                        if (q->prefix == '?')
                                track_dec_mode(f, q->p[i], q->final == 'h');
                        else if (!q->prefix)
                                track_ansi_mode(f, q->p[i], q->final == 'h');
                }
                break;
        case 'r':
                if (q->inter)
                        break;
                if (q->prefix == '?') { /* XTRESTORE: modes back to values saved earlier */
                        if (q->truncated)
                                track_all_modes_unknown(f, '?');
                        for (unsigned i = 0; i < q->np; i++)
                                track_dec_mode(f, q->p[i], -1);
                } else if (!q->prefix) {
                        if (q->np == 0)
                                f->dirty &= ~D_SCROLL;
                        else
                                f->dirty |= D_SCROLL;
                }
                break;
        case 'q':
                if (q->inter == ' ' && !q->prefix) {
                        if (q->np == 0 || q->p[0] <= 0)
                                f->dirty &= ~D_CURSOR_STYLE;
                        else
                                f->dirty |= D_CURSOR_STYLE;
                }
                break;
        case 'u': {
                uint8_t *k = cordon_term_kitty_stack(f);
                if (q->inter)
                        break;
                if (q->prefix == '>' && *k < UINT8_MAX)
                        (*k)++;
                else if (q->prefix == '<') {
                        int n = q->np > 0 && q->p[0] > 0 ? q->p[0] : 1;
                        *k = n >= *k ? 0 : (uint8_t)(*k - n);
                }
                break;
        }
        case 'm':
                if (q->inter)
                        break;
                if (q->prefix == '>') { /* XTMODKEYS: a resource with a value, or reset */
                        if (q->np == 0)
                                f->modkeys_dirty = 0;
                        else if (q->p[0] >= 0 && q->p[0] < 8) {
                                if (q->np >= 2 && q->p[1] >= 0)
                                        f->modkeys_dirty |= (uint8_t)(1u << q->p[0]);
                                else
                                        f->modkeys_dirty &= (uint8_t) ~(1u << q->p[0]);
                        }
                } else if (!q->prefix) {
                        bool reset = !q->sub && !q->truncated;
                        for (unsigned i = 0; i < q->np && reset; i++)
                                reset = q->p[i] <= 0;
                        if (reset)
                                f->dirty &= ~D_SGR;
                        else
                                f->dirty |= D_SGR;
                }
                break;
        }
}

void cordon_term_filter_input(struct cordon_term_filter *f, const uint8_t *in, size_t n)
{
        enum { IN_GROUND, IN_ESC, IN_CSI };
        for (size_t i = 0; i < n; i++) {
                uint8_t c = in[i];
                switch (f->in_state) {
                case IN_ESC:
                        f->in_state = c == '[' ? IN_CSI : c == 0x1b ? IN_ESC : IN_GROUND;
                        f->in_private = false;
                        continue;
                case IN_CSI:
                        if (c == '?')
                                f->in_private = true;
                        if (c >= 0x20 && c <= 0x3f)
                                continue;
                        if (c == 'R' && f->cpr_pending > 0)
                                f->cpr_pending--;
                        else if (c == 'c' && f->in_private && f->da_pending > 0)
                                f->da_pending--;
                        f->in_state = c == 0x1b ? IN_ESC : IN_GROUND;
                        continue;
                default:
                        if (c == 0x1b)
                                f->in_state = IN_ESC;
                        else if (c == 0x9b) {
                                f->in_state = IN_CSI;
                                f->in_private = false;
                        }
                        continue;
                }
        }
}

bool cordon_term_filter_awaits_answer(const struct cordon_term_filter *f)
{
        return f->cpr_pending > 0 || f->da_pending > 0;
}

struct buf {
        uint8_t *p;
        size_t n;
};

_printf_(2, 3) static void add(struct buf *b, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf((char *)b->p + b->n, CORDON_TERM_FILTER_FINISH_MAX - b->n, fmt, ap);
        va_end(ap);
        if (k > 0 && (size_t)k < CORDON_TERM_FILTER_FINISH_MAX - b->n)
                b->n += (size_t)k;
}

size_t cordon_term_filter_finish(struct cordon_term_filter *f,
                                 uint8_t out[CORDON_TERM_FILTER_FINISH_MAX])
{
        struct buf b = {.p = out};

        /* A sequence left open would swallow the user's prompt: what was held back is simply
         * not sent; what the terminal has seen the start of is ended. */
        switch (f->state) {
        case ST_STR:
        case ST_STR_ESC:
                add(&b, "\x1b\\");
                break;
        case ST_ESC:
        case ST_ESC_INT:
        case ST_ESC_DROP:
        case ST_CSI:
        case ST_CSI_DROP:
                if (f->passthrough)
                        add(&b, "\x18");
                break;
        }
        f->state = ST_GROUND;
        f->hold_len = 0;
        f->utf8_left = 0;

        /* Kitty keeps a keyboard mode stack per screen: pop what was pushed on the alternate
         * one while it is still shown, then the main one's after leaving it. */
        if (f->alt_screen && f->kitty_alt)
                add(&b, "\x1b[<%uu", f->kitty_alt);
        for (size_t i = 0; i < ELEMENTSOF(dec_modes); i++) {
                if (i == N_ALT_MODES && f->kitty_main)
                        add(&b, "\x1b[<%uu", f->kitty_main);
                if (f->dirty & BIT(i))
                        add(&b, "\x1b[?%u%c", dec_modes[i].mode, dec_modes[i].on ? 'h' : 'l');
        }
        for (size_t i = 0; i < ELEMENTSOF(ansi_modes); i++)
                if (f->dirty & D_ANSI(i))
                        add(&b, "\x1b[%u%c", ansi_modes[i].mode, ansi_modes[i].on ? 'h' : 'l');
        if (f->dirty & D_KEYPAD)
                add(&b, "\x1b>");
        /* DECSTBM homes the cursor: keep it where it is. */
        if (f->dirty & D_SCROLL)
                add(&b, "\x1b"
                        "7\x1b[r\x1b"
                        "8");
        if (f->dirty & D_CURSOR_STYLE)
                add(&b, "\x1b[0 q");
        for (unsigned r = 0; r < 8; r++)
                if (f->modkeys_dirty & (1u << r))
                        add(&b, "\x1b[>%um", r);
        if (f->dirty & D_CHARSET)
                add(&b, "\x0f\x1b(B");
        if (f->dirty & D_SGR)
                add(&b, "\x1b[0m");

        f->dirty = 0;
        f->modkeys_dirty = f->kitty_main = f->kitty_alt = 0;
        f->alt_screen = false;
        return b.n;
}
