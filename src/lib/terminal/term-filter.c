/* The escape-sequence filter between the sandbox's pty and the user's terminal: an ECMA-48
 * parser (7-bit, raw 8-bit C1 and UTF-8 encoded C1 forms) that holds a sequence back until it is
 * complete, then passes or drops it whole, and remembers the modes the inside turned on. */
#include <stdio.h>
#include <string.h>

#include "lib/terminal/term-filter-internal.h"
#include "lib/terminal/term-filter.h"
#include "shared/macro.h"

/* The user's terminal is taken to decode UTF-8, as every current one does: a byte 0x80-0x9f
 * that continues a UTF-8 character is text, a stray one (and U+0080-U+009F encoded as C2 xx) is
 * a C1 control. A terminal in an 8-bit, non-UTF-8 mode that acts on C1 bytes inside what is
 * valid UTF-8 (Cyrillic "Н" is D0 9D, and 9D is OSC) is not covered (see cordon(1)).
 *
 * What passes and why. The rule for strings is an allow list, for CSI and ESC a deny list:
 *   OSC   only 8 (hyperlinks, printed by ls, gcc, systemd), with a printable ASCII payload. All
 *         else is dropped: 52 reads and writes the clipboard, 0/1/2 set the window title that
 *         outlives the sandbox (and a title could be made to look like the host's), 4/10/11/12
 *         set or query colours, 7 tells the terminal a directory, 9/99/777 raise notifications,
 *         50 sets the font, 1337 (iTerm2) writes files, 5113/5522 (kitty) move files and the
 *         clipboard; "?" forms of any of them ask for a reply.
 *   DCS, APC, PM, SOS   all dropped: DECRQSS (DCS $ q) and XTGETTCAP (DCS + q) ask for replies
 *         (a DECRQSS reply once echoed attacker text into the shell, CVE-2008-2383), DECUDK
 *         (DCS |) programs keys, "DCS tmux;" passes anything to the terminal outside tmux,
 *         kitty's graphics protocol (APC G) makes the terminal read files; sixel images go too.
 *   CSI   report requests are dropped: DSR (n) except the cursor position report, DA2 (> c),
 *         DA3 (= c), window operations and reports (t, including the title report), DECRQM
 *         ($ p), XTVERSION (> q), the kitty keyboard query (? u), DECRQTSR ($ u), XTQMODKEYS
 *         (? m), XTSMGRAPHICS (? S), DECREQTPARM (x), DECRQCRA (* y, a checksum of what is on
 *         the screen) and DECTST (y), DECRQPSR ($ w), DEC locator requests ('), media copy (i,
 *         the printer), DECSCPP/DECSNLS ($ |, * |, a resize), DECSCL (" p, can switch replies
 *         to 8-bit), XTPUSHCOLORS/XTPOPCOLORS/XTREPORTCOLORS (# P/Q/R), DECRQDE (" v).
 *         Passed: the cursor position report (6n) and primary device attributes (c): the
 *         replies are a position and a fixed list of capabilities, and programs wait for them
 *         (crossterm's cursor::position(), so Codex and nushell; fish and neovim use DA1 to know
 *         all answers are in). The filter counts them and the relay waits for their answers at
 *         the end, so none reaches the user's shell. Everything else (colours, cursor movement,
 *         modes such as the alternate screen or mouse reporting) passes; the modes are tracked
 *         and reset by cordon_term_filter_finish().
 *   ESC   dropped: DECID (ESC Z, a report), DOCS (ESC %, the terminal's encoding), S7C1T/S8C1T
 *         and the conformance levels (ESC SP). */

/* Where output goes; @quiet in passthrough, where the caller copies every byte itself. */
struct sink {
        uint8_t *p;
        size_t n;
        bool quiet;
};

static void put(struct sink *s, uint8_t c)
{
        if (!s->quiet)
                s->p[s->n++] = c;
}

static void put_mem(struct sink *s, const void *p, size_t n)
{
        if (!s->quiet && n > 0) {
                memmove(s->p + s->n, p, n);
                s->n += n;
        }
}

void cordon_term_filter_init(struct cordon_term_filter *f, bool passthrough)
{
        *f = (struct cordon_term_filter){.passthrough = passthrough, .state = ST_GROUND};
}

static bool hold_add(struct cordon_term_filter *f, uint8_t c)
{
        if (f->hold_len >= sizeof(f->hold))
                return false;
        f->hold[f->hold_len++] = c;
        return true;
}

/* Ends the held sequence: passes it on, or drops it. A dropped one never reached the terminal,
 * so a character it interrupted is still open there and takes the bytes after it: the filter
 * goes back to that state too. */
static void end_seq(struct cordon_term_filter *f, struct sink *s, bool pass)
{
        if (pass)
                put_mem(s, f->hold, f->hold_len);
        bool keep = !pass && !f->passthrough;
        f->utf8_left = keep ? f->utf8_before : 0;
        f->utf8_c2 = keep && f->c2_before;
        f->hold_len = 0;
        f->state = ST_GROUND;
}

static void step(struct cordon_term_filter *f, struct sink *s, uint8_t c);

static void start_esc(struct cordon_term_filter *f)
{
        f->hold_len = 0;
        f->hold[f->hold_len++] = 0x1b;
        f->state = ST_ESC;
}

/* Strings (OSC and friends): the introducer is held. */
static void begin_string(struct cordon_term_filter *f, int kind)
{
        f->str_kind = (uint8_t)kind;
        f->utf8_left = 0;
        f->utf8_c2 = false;
        f->last = 0;
        if (f->passthrough) {
                f->hold_len = 0;
                f->state = ST_STR;
        } else if (kind == STR_OSC) {
                f->osc_num = 0;
                f->osc_digits = 0;
                f->state = ST_OSC_NUM;
        } else {
                f->hold_len = 0;
                f->state = ST_STR_DROP;
        }
}

/* A C1 control whose bytes (raw, or C2 xx) are held; @c is its code, 0x80-0x9f. */
static void c1(struct cordon_term_filter *f, struct sink *s, uint8_t c)
{
        switch (c) {
        case 0x9b:
                f->state = ST_CSI;
                return;
        case 0x9d:
                begin_string(f, STR_OSC);
                return;
        case 0x90:
                begin_string(f, STR_DCS);
                return;
        case 0x98:
                begin_string(f, STR_SOS);
                return;
        case 0x9e:
                begin_string(f, STR_PM);
                return;
        case 0x9f:
                begin_string(f, STR_APC);
                return;
        default:
                /* 0x9a is DECID, a report request; the rest act on the screen only. */
                end_seq(f, s, c != 0x9a);
        }
}

static void ground(struct cordon_term_filter *f, struct sink *s, uint8_t c)
{
        if (f->utf8_left > 0) {
                if (c >= 0x80 && c <= 0xbf) {
                        /* C2 and 80-9F would be an encoded C1 control, which can only happen
                         * when a sequence between them was dropped: this byte goes too. */
                        if (f->utf8_c2 && c <= 0x9f)
                                return;
                        f->utf8_left--;
                        f->utf8_c2 = false;
                        put(s, c);
                        return;
                }
                /* A character cut short: the terminal shows a replacement, and reads this byte
                 * afresh, as here. */
                f->utf8_before = f->utf8_left;
                f->c2_before = f->utf8_c2;
                f->utf8_left = 0;
                f->utf8_c2 = false;
        } else {
                f->utf8_before = 0;
                f->c2_before = false;
        }
        if (c == 0x1b) {
                start_esc(f);
                return;
        }
        if (c == 0x0e) /* SO: G1 becomes the character set in use */
                f->dirty |= D_CHARSET;
        if (c < 0x80) {
                put(s, c);
                return;
        }
        if (c <= 0x9f) {
                f->hold_len = 0;
                f->hold[f->hold_len++] = c;
                c1(f, s, c);
                return;
        }
        if (c == 0xc2) {
                f->hold_len = 0;
                f->hold[f->hold_len++] = c;
                f->state = ST_C2;
                return;
        }
        if (c >= 0xc3 && c <= 0xdf)
                f->utf8_left = 1;
        else if (c >= 0xe0 && c <= 0xef)
                f->utf8_left = 2;
        else if (c >= 0xf0 && c <= 0xf4)
                f->utf8_left = 3;
        put(s, c);
}

/* C0 controls inside ESC and CSI sequences. Returns true when @c was handled: the terminal
 * executes most at once, as if they came before the sequence; ESC starts a new one and CAN and
 * SUB cancel it; a byte from 0x80 up ends it and is read as text. The held sequence is dropped
 * in the last three cases: the terminal never saw its start. */
static bool seq_control(struct cordon_term_filter *f, struct sink *s, uint8_t c)
{
        if (c == 0x1b) {
                start_esc(f);
                return true;
        }
        if (c == 0x18 || c == 0x1a) {
                end_seq(f, s, false);
                put(s, c);
                f->utf8_left = 0;
                f->utf8_c2 = false;
                return true;
        }
        if (c < 0x20) {
                put(s, c);
                f->utf8_before = 0;
                f->c2_before = false;
                return true;
        }
        if (c >= 0x80) {
                end_seq(f, s, false);
                ground(f, s, c);
                return true;
        }
        return false;
}

static void esc_final(struct cordon_term_filter *f, struct sink *s)
{
        uint8_t inter = f->hold_len > 2 ? f->hold[1] : 0;
        uint8_t final = f->hold[f->hold_len - 1];
        bool pass = true;

        if (!inter) {
                switch (final) {
                case 'Z': /* DECID: identify the terminal */
                        pass = false;
                        break;
                case '=':
                        f->dirty |= D_KEYPAD;
                        break;
                case '>':
                        f->dirty &= ~D_KEYPAD;
                        break;
                case 'c': /* RIS: the terminal is reset to its initial state */
                        f->dirty = 0;
                        f->modkeys_dirty = f->kitty_main = f->kitty_alt = 0;
                        f->alt_screen = false;
                        break;
                case 'n':
                case 'o':
                case '|':
                case '}':
                case '~': /* locking shifts */
                        f->dirty |= D_CHARSET;
                        break;
                }
        } else if (inter == '%' || inter == ' ')
                pass = false;
        else if (strchr("()*+-./", inter) && !(f->hold_len == 3 && inter == '(' && final == 'B'))
                f->dirty |= D_CHARSET;
        if (pass || f->passthrough) {
                end_seq(f, s, true);
                return;
        }
        end_seq(f, s, false);
}

static void esc(struct cordon_term_filter *f, struct sink *s, uint8_t c)
{
        if (seq_control(f, s, c))
                return;
        if (c == 0x7f) /* ignored by terminals */
                return;
        if (c <= 0x2f) {
                if (!hold_add(f, c) || f->hold_len > 16)
                        f->state = ST_ESC_DROP;
                else
                        f->state = ST_ESC_INT;
                return;
        }
        if (f->state == ST_ESC) {
                int kind = -1;
                switch (c) {
                case '[':
                        hold_add(f, c);
                        f->state = ST_CSI;
                        return;
                case ']':
                        kind = STR_OSC;
                        break;
                case 'P':
                        kind = STR_DCS;
                        break;
                case 'X':
                        kind = STR_SOS;
                        break;
                case 'k': /* screen's and tmux's title string, ended by ST like the others */
                        kind = STR_SOS;
                        break;
                case '^':
                        kind = STR_PM;
                        break;
                case '_':
                        kind = STR_APC;
                        break;
                }
                if (kind >= 0) {
                        hold_add(f, c);
                        begin_string(f, kind);
                        return;
                }
        }
        hold_add(f, c);
        esc_final(f, s);
}

/* Parses the held CSI. Returns false for a malformed one, which terminals ignore. */
static bool csi_parse(const struct cordon_term_filter *f, struct csi *q)
{
        size_t i = f->hold[0] == 0x1b || f->hold[0] == 0xc2 ? 2 : 1;
        size_t end = f->hold_len - 1;
        bool in_param = false;

        *q = (struct csi){.final = f->hold[end]};
        if (i < end && f->hold[i] >= '<' && f->hold[i] <= '?')
                q->prefix = f->hold[i++];
        for (; i < end; i++) {
                uint8_t c = f->hold[i];
                if (c >= 0x20 && c <= 0x2f) {
                        if (!q->inter)
                                q->inter = c;
                        continue;
                }
                if (q->inter || (c >= '<' && c <= '?'))
                        return false;
                if (!in_param) {
                        if (q->np < ELEMENTSOF(q->p))
                                q->p[q->np] = -1;
                        q->np++;
                        in_param = true;
                }
                if (c == ';')
                        in_param = false;
                else if (c == ':')
                        q->sub = true;
                else if (q->np <= ELEMENTSOF(q->p) && !q->sub) {
                        int *v = &q->p[q->np - 1];
                        *v = (*v < 0 ? 0 : *v) * 10 + (c - '0');
                        if (*v > 65535)
                                *v = 65535;
                }
        }
        /* "1;" has a second, empty parameter */
        if (end > 0 && f->hold[end - 1] == ';' && q->np < ELEMENTSOF(q->p))
                q->p[q->np++] = -1;
        if (q->np > ELEMENTSOF(q->p)) {
                q->np = ELEMENTSOF(q->p);
                q->truncated = true;
        }
        return true;
}

/* Whether a CSI sequence goes to the user's terminal (see the list at the top). */
static bool csi_passes(struct cordon_term_filter *f, const struct csi *q)
{
        if (q->inter == '\'') /* DEC locator: enabling reports, requesting the position */
                return false;
        switch (q->final) {
        case 'n': /* DSR: only the cursor position report */
                return (q->prefix == 0 || q->prefix == '?') && !q->inter && q->np == 1 &&
                       q->p[0] == 6 && f->cpr_pending < CORDON_TERM_FILTER_PENDING_MAX;
        case 'c': /* DA1 passes; DA2, DA3 and the rest of the family not */
                if (q->inter)
                        return true;
                return q->prefix == 0 && (q->np == 0 || (q->np == 1 && q->p[0] <= 0)) &&
                       f->da_pending < CORDON_TERM_FILTER_PENDING_MAX;
        case 't':
        case 'i':
        case 'y':
                return false;
        case 'p':
                return q->inter != '$' && q->inter != '"';
        case 'q':
                return !(q->prefix == '>' && !q->inter);
        case 'u':
                if (q->inter)
                        return q->inter != '$';
                switch (q->prefix) {
                case '?':
                        return false;
                case '>': /* a push that could not be undone at the end is not made */
                        return *cordon_term_kitty_stack(f) < CORDON_TERM_FILTER_PENDING_MAX;
                case '=': /* changes the top entry, which without a push is the user's */
                        return *cordon_term_kitty_stack(f) > 0;
                default:
                        return true;
                }
        case 'S':
        case 'm':
                return q->prefix != '?';
        case 'x':
                return q->inter || q->prefix;
        case 'w':
                return q->inter != '$';
        case '|':
                return q->inter != '$' && q->inter != '*';
        case 'P':
        case 'Q':
        case 'R':
                return q->inter != '#';
        case 'v':
                return q->inter != '"';
        default:
                return true;
        }
}

static void csi_final(struct cordon_term_filter *f, struct sink *s)
{
        struct csi q;
        if (!csi_parse(f, &q)) {
                end_seq(f, s, f->passthrough);
                return;
        }
        bool pass = f->passthrough || csi_passes(f, &q);
        if (pass)
                cordon_term_track_csi(f, &q);
        end_seq(f, s, pass);
}

static void csi(struct cordon_term_filter *f, struct sink *s, uint8_t c)
{
        if (seq_control(f, s, c))
                return;
        if (c == 0x7f)
                return;
        if (f->state == ST_CSI_DROP) {
                if (c >= 0x40)
                        end_seq(f, s, false);
                return;
        }
        if (!hold_add(f, c)) {
                /* Longer than any real sequence: dropped whole, the terminal saw none of it. */
                f->hold_len = 0;
                f->state = ST_CSI_DROP;
                if (c >= 0x40)
                        end_seq(f, s, false);
                return;
        }
        if (c >= 0x40)
                csi_final(f, s);
}

/* In a string: 1 for a terminator (BEL, ST as 9C or C2 9C, CAN, SUB), 2 for ESC, 0 for
 * content. UTF-8 is followed so that a 9C inside a character is content, as the terminal
 * reads it. */
static int str_end(struct cordon_term_filter *f, uint8_t c)
{
        uint8_t last = f->last;
        f->last = c;
        if (f->utf8_left > 0 && c >= 0x80 && c <= 0xbf) {
                f->utf8_left--;
                return last == 0xc2 && c == 0x9c ? 1 : 0;
        }
        f->utf8_left = 0;
        if (c == 0x07 || c == 0x9c || c == 0x18 || c == 0x1a)
                return 1;
        if (c == 0x1b)
                return 2;
        if (c >= 0xc2 && c <= 0xdf)
                f->utf8_left = 1;
        else if (c >= 0xe0 && c <= 0xef)
                f->utf8_left = 2;
        else if (c >= 0xf0 && c <= 0xf4)
                f->utf8_left = 3;
        return 0;
}

static void osc_num(struct cordon_term_filter *f, struct sink *s, uint8_t c)
{
        if (c >= '0' && c <= '9' && f->osc_digits < 8) {
                hold_add(f, c);
                f->osc_digits++;
                f->osc_num = (uint16_t)(f->osc_num * 10 + (c - '0'));
                return;
        }
        if (c == ';' && f->osc_digits == 1 && f->osc_num == 8) {
                hold_add(f, c);
                put_mem(s, f->hold, f->hold_len);
                f->hold_len = 0;
                f->state = ST_STR;
                return;
        }
        /* Any other OSC: dropped, from here to its end. */
        f->hold_len = 0;
        f->state = ST_STR_DROP;
        step(f, s, c);
}

/* A passed OSC 8 in filter mode. Its payload may be printable ASCII and UTF-8 characters other
 * than the encoded C1 controls, nothing the terminal could take for the string's end. BEL and
 * ST end it as they are; anything else ends it too, replaced by a BEL we write (a C0 control in
 * a string does nothing anyway), so the terminal and the filter agree where it ends. Every byte
 * written stands for one read: the in-place guarantee of cordon_term_filter_output(). */
static void str(struct cordon_term_filter *f, struct sink *s, uint8_t c)
{
        if (f->passthrough) {
                int e = str_end(f, c);
                if (e == 1)
                        f->state = ST_GROUND;
                else if (e == 2)
                        f->state = ST_STR_ESC;
                return;
        }
        /* DEL is dropped, and must not hide a C2 from the byte after it. */
        if (c == 0x7f)
                return;
        uint8_t last = f->last;
        f->last = c;
        if (c == 0x1b) {
                f->state = ST_STR_ESC;
                return;
        }
        bool content;
        if (c >= 0x80 && c <= 0xbf && f->utf8_left > 0) {
                f->utf8_left--;
                content = !(last == 0xc2 && c <= 0x9f);
        } else {
                /* Anything but a continuation ends the character before it. */
                f->utf8_left = c < 0xc2 ? 0 : c <= 0xdf ? 1 : c <= 0xef ? 2 : c <= 0xf4 ? 3 : 0;
                content = (c >= 0x20 && c <= 0x7e) || c >= 0xa0;
        }
        if (content) {
                put(s, c);
                return;
        }
        f->state = ST_GROUND;
        f->utf8_left = 0;
        put(s, c == 0x18 || c == 0x1a ? c : 0x07);
}

static void str_esc(struct cordon_term_filter *f, struct sink *s, uint8_t c)
{
        f->state = ST_GROUND;
        if (c == '\\') {
                put_mem(s, "\x1b\\", 2);
                return;
        }
        if (f->passthrough) {
                /* ESC and something else: the string ended, a sequence begins. */
                start_esc(f);
                esc(f, s, c);
                return;
        }
        /* Our BEL stands for the ESC, which is dropped; @c is read as text, not as the rest
         * of a character the string began. */
        put(s, 0x07);
        f->utf8_left = 0;
        ground(f, s, c);
}

static void str_drop(struct cordon_term_filter *f, struct sink *s, uint8_t c)
{
        if (f->state == ST_STR_DROP_ESC) {
                if (c == '\\') {
                        end_seq(f, s, false);
                        return;
                }
                start_esc(f);
                esc(f, s, c);
                return;
        }
        int e = str_end(f, c);
        if (e == 1)
                end_seq(f, s, false);
        else if (e == 2)
                f->state = ST_STR_DROP_ESC;
}

static void step(struct cordon_term_filter *f, struct sink *s, uint8_t c)
{
        switch (f->state) {
        case ST_GROUND:
                ground(f, s, c);
                return;
        case ST_C2:
                if (c >= 0x80 && c <= 0x9f) {
                        hold_add(f, c);
                        c1(f, s, c);
                        return;
                }
                /* Not a C1 control: the C2 was text. */
                end_seq(f, s, true);
                f->utf8_left = 1;
                f->utf8_c2 = true;
                ground(f, s, c);
                return;
        case ST_ESC:
        case ST_ESC_INT:
                esc(f, s, c);
                return;
        case ST_ESC_DROP:
                if (!seq_control(f, s, c) && c >= 0x30 && c != 0x7f)
                        end_seq(f, s, false);
                return;
        case ST_CSI:
        case ST_CSI_DROP:
                csi(f, s, c);
                return;
        case ST_OSC_NUM:
                osc_num(f, s, c);
                return;
        case ST_STR:
                str(f, s, c);
                return;
        case ST_STR_ESC:
                str_esc(f, s, c);
                return;
        default:
                str_drop(f, s, c);
                return;
        }
}

size_t cordon_term_filter_output(struct cordon_term_filter *f, const uint8_t *in, size_t n,
                                 uint8_t *out)
{
        struct sink s = {.p = out, .quiet = f->passthrough};
        for (size_t i = 0; i < n; i++) {
                uint8_t c = in[i];
                if (f->passthrough)
                        out[s.n++] = c;
                step(f, &s, c);
        }
        return s.n;
}
