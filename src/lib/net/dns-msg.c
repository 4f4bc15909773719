/* DNS messages for the filtered mode's resolver (see dns-msg.h): RFC 1035's wire format, read
 * with every length checked against the datagram before it is used. */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "lib/net/dns-msg.h"

#define FLAG_QR    0x8000u
#define FLAG_RD    0x0100u
#define FLAG_RA    0x0080u
#define FLAG_CD    0x0010u
#define OPCODE(f)  (((f) >> 11) & 0xfu)
#define DO_BIT     0x8000u
#define LABELS_MAX 128 /* a 255-byte name has at most 127 labels and the root */

static uint16_t get16(const uint8_t *p)
{
        return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, unsigned v)
{
        p[0] = (uint8_t)(v >> 8);
        p[1] = (uint8_t)v;
}

int cordon_dns_query_parse(const uint8_t *buf, size_t len, struct cordon_dns_query *ret)
{
        *ret = (struct cordon_dns_query){0};
        if (len < CORDON_DNS_HEADER)
                return -EPROTO;
        ret->id = get16(buf);
        unsigned flags = get16(buf + 2);
        if (flags & FLAG_QR)
                return -EPROTO; /* a response: answering it could start a loop */
        if (len > CORDON_DNS_QUERY_MAX || OPCODE(flags) != 0 || get16(buf + 4) != 1 ||
            get16(buf + 6) != 0 || get16(buf + 8) != 0 || get16(buf + 10) > 1)
                return -EINVAL;
        ret->rd = flags & FLAG_RD;
        ret->cd = flags & FLAG_CD;

        size_t pos = CORDON_DNS_HEADER, text = 0;
        for (;;) {
                if (pos >= len)
                        return -EINVAL;
                size_t l = buf[pos++];
                if (l == 0)
                        break;
                /* A query has nothing earlier to point at; the other two label types are
                 * obsolete. */
                if (l & 0xc0 || l > len - pos)
                        return -EINVAL;
                if (text + (text ? 1 : 0) + l > CORDON_NET_NAME_MAX)
                        return -EINVAL;
                if (text)
                        ret->name[text++] = '.';
                for (size_t i = 0; i < l; i++) {
                        uint8_t c = buf[pos + i];
                        if (c <= 0x20 || c >= 0x7f || c == '.')
                                return -EINVAL;
                        ret->name[text++] = (char)c;
                }
                pos += l;
        }
        ret->name[text] = 0;
        if (len - pos < 4)
                return -EINVAL;
        ret->qtype = get16(buf + pos);
        ret->qclass = get16(buf + pos + 2);
        pos += 4;
        ret->question_len = pos - CORDON_DNS_HEADER;

        if (get16(buf + 10) == 1) {
                /* OPT (RFC 6891): the root name, type 41, the payload size as its class, the
                 * extended rcode, version 0 and the DO bit as its TTL, then options. */
                if (len - pos < 11 || buf[pos] != 0 ||
                    get16(buf + pos + 1) != CORDON_DNS_TYPE_OPT || buf[pos + 6] != 0)
                        return -EINVAL;
                unsigned size = get16(buf + pos + 3);
                ret->edns = true;
                ret->edns_size = (uint16_t)(size < 512 ? 512 : size);
                ret->dnssec_ok = get16(buf + pos + 7) & DO_BIT;
                size_t rdlen = get16(buf + pos + 9);
                pos += 11;
                if (rdlen > len - pos)
                        return -EINVAL;
                pos += rdlen;
        }
        return pos == len ? 0 : -EINVAL;
}

bool cordon_dns_qtype_is_meta(uint16_t qtype)
{
        /* OPT, TKEY, TSIG, IXFR, AXFR, MAILB, MAILA, ANY */
        return qtype == CORDON_DNS_TYPE_OPT || (qtype >= 249 && qtype <= 255);
}

int cordon_dns_query_build(const struct cordon_dns_query *q, const char *name, uint16_t id,
                           uint8_t *out, size_t size)
{
        size_t nlen = strlen(name);
        if (nlen > CORDON_NET_NAME_MAX)
                return -EINVAL;
        /* header, the name (one length byte more than its text, and the root), type, class,
         * and an OPT record */
        size_t need = CORDON_DNS_HEADER + nlen + 2 + 4 + (q->edns ? 11 : 0);
        if (size < need)
                return -ENOBUFS;
        put16(out, id);
        put16(out + 2, (q->rd ? FLAG_RD : 0) | (q->cd ? FLAG_CD : 0));
        put16(out + 4, 1);
        put16(out + 6, 0);
        put16(out + 8, 0);
        put16(out + 10, q->edns ? 1 : 0);
        size_t pos = CORDON_DNS_HEADER;
        for (const char *p = name; *p;) {
                const char *dot = strchr(p, '.');
                size_t l = dot ? (size_t)(dot - p) : strlen(p);
                if (l == 0 || l > 63)
                        return -EINVAL;
                out[pos++] = (uint8_t)l;
                memcpy(out + pos, p, l);
                pos += l;
                p += l;
                if (*p == '.' && !*++p)
                        return -EINVAL; /* a trailing dot is not part of the text */
        }
        out[pos++] = 0;
        put16(out + pos, q->qtype);
        put16(out + pos + 2, q->qclass);
        pos += 4;
        if (q->edns) {
                unsigned esize =
                    q->edns_size < CORDON_DNS_EDNS_SIZE ? q->edns_size : CORDON_DNS_EDNS_SIZE;
                out[pos] = 0;
                put16(out + pos + 1, CORDON_DNS_TYPE_OPT);
                put16(out + pos + 3, esize);
                out[pos + 5] = 0; /* extended rcode */
                out[pos + 6] = 0; /* version */
                put16(out + pos + 7, q->dnssec_ok ? DO_BIT : 0);
                put16(out + pos + 9, 0);
                pos += 11;
        }
        return (int)pos;
}

size_t cordon_dns_reply(const uint8_t *buf, size_t len, const struct cordon_dns_query *q,
                        enum cordon_dns_rcode rcode, uint8_t *out, size_t size)
{
        if (len < CORDON_DNS_HEADER || size < CORDON_DNS_HEADER)
                return 0;
        size_t qlen = q && q->question_len && q->question_len <= len - CORDON_DNS_HEADER &&
                              q->question_len <= size - CORDON_DNS_HEADER
                          ? q->question_len
                          : 0;
        unsigned flags = get16(buf + 2);
        memcpy(out, buf, 2);
        put16(out + 2, FLAG_QR | (flags & 0x7800u) | (flags & FLAG_RD) | FLAG_RA | (rcode & 0xfu));
        put16(out + 4, qlen ? 1 : 0);
        put16(out + 6, 0);
        put16(out + 8, 0);
        put16(out + 10, 0);
        memcpy(out + CORDON_DNS_HEADER, buf + CORDON_DNS_HEADER, qlen);
        return CORDON_DNS_HEADER + qlen;
}

static uint8_t lower(uint8_t c)
{
        return c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
}

/* Moves *@pos past the (possibly compressed) name there; pointers are not followed (only the
 * record after the name is read). */
static int skip_name(const uint8_t *buf, size_t len, size_t *pos)
{
        size_t p = *pos;
        for (unsigned labels = 0; labels < LABELS_MAX; labels++) {
                if (p >= len)
                        return -EBADMSG;
                uint8_t l = buf[p];
                if ((l & 0xc0) == 0xc0) {
                        if (len - p < 2)
                                return -EBADMSG;
                        *pos = p + 2;
                        return 0;
                }
                if (l & 0xc0)
                        return -EBADMSG;
                p += 1 + (size_t)l;
                if (l == 0) {
                        *pos = p;
                        return 0;
                }
        }
        return -EBADMSG;
}

int cordon_dns_answer_walk(const uint8_t *buf, size_t len, uint16_t id, const uint8_t *question,
                           size_t question_len,
                           int (*fn)(void *userdata, const struct cordon_net_addr *addr),
                           void *userdata)
{
        if (len < CORDON_DNS_HEADER || question_len < 5 || question_len > len - CORDON_DNS_HEADER)
                return -EBADMSG;
        unsigned flags = get16(buf + 2);
        if (get16(buf) != id || !(flags & FLAG_QR) || OPCODE(flags) != 0 || get16(buf + 4) != 1)
                return -EBADMSG;
        const uint8_t *qb = buf + CORDON_DNS_HEADER;
        for (size_t i = 0; i < question_len; i++)
                if (i < question_len - 4 ? lower(qb[i]) != lower(question[i])
                                         : qb[i] != question[i])
                        return -EBADMSG;
        size_t pos = CORDON_DNS_HEADER + question_len;
        unsigned records = (unsigned)get16(buf + 6) + get16(buf + 8) + get16(buf + 10);
        for (unsigned i = 0; i < records; i++) {
                int r = skip_name(buf, len, &pos);
                if (r < 0)
                        return r;
                if (len - pos < 10)
                        return -EBADMSG;
                unsigned type = get16(buf + pos), class = get16(buf + pos + 2);
                size_t rdlen = get16(buf + pos + 8);
                pos += 10;
                if (rdlen > len - pos)
                        return -EBADMSG;
                struct cordon_net_addr a = {0};
                if (type == CORDON_DNS_TYPE_A && class == CORDON_DNS_CLASS_IN && rdlen == 4) {
                        a.family = AF_INET;
                        memcpy(&a.v4, buf + pos, 4);
                } else if (type == CORDON_DNS_TYPE_AAAA && class == CORDON_DNS_CLASS_IN &&
                           rdlen == 16) {
                        a.family = AF_INET6;
                        memcpy(&a.v6, buf + pos, 16);
                }
                if (a.family && (r = fn(userdata, &a)) < 0)
                        return r;
                pos += rdlen;
        }
        return 0;
}

unsigned cordon_dns_rcode(const uint8_t *buf)
{
        return buf[3] & 0xfu;
}
