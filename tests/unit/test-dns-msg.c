/* Unit tests for src/lib/net/dns-msg.c: queries parsed and refused, the forwarded query rebuilt
 * from its parts, cordon's own replies, and the walk over an answer's address records. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "lib/net/dns-msg.h"

/* A query for @name (dotted, no escapes) of @qtype, with an OPT record when @edns. */
static size_t make_query(uint8_t *b, uint16_t id, const char *name, uint16_t qtype, bool edns)
{
        size_t n = 0;
        b[n++] = (uint8_t)(id >> 8), b[n++] = (uint8_t)id;
        b[n++] = 0x01, b[n++] = 0x00; /* RD */
        b[n++] = 0, b[n++] = 1, b[n++] = 0, b[n++] = 0, b[n++] = 0, b[n++] = 0;
        b[n++] = 0, b[n++] = edns ? 1 : 0;
        for (const char *p = name; *p;) {
                const char *dot = strchr(p, '.');
                size_t l = dot ? (size_t)(dot - p) : strlen(p);
                b[n++] = (uint8_t)l;
                memcpy(b + n, p, l);
                n += l;
                p += l + (dot ? 1 : 0);
        }
        b[n++] = 0;
        b[n++] = (uint8_t)(qtype >> 8), b[n++] = (uint8_t)qtype, b[n++] = 0, b[n++] = 1;
        if (edns) {
                const uint8_t opt[] = {0, 0, 41, 0x10, 0x00, 0, 0, 0x80, 0, 0, 0};
                memcpy(b + n, opt, sizeof(opt));
                n += sizeof(opt);
        }
        return n;
}

Test(dns_msg, parse_query)
{
        uint8_t b[512];
        size_t n = make_query(b, 0x4242, "Ok.Test.Example", CORDON_DNS_TYPE_A, false);
        struct cordon_dns_query q;
        cr_assert_eq(cordon_dns_query_parse(b, n, &q), 0);
        cr_expect_eq(q.id, 0x4242);
        cr_expect(q.rd);
        cr_expect_not(q.edns);
        cr_expect_str_eq(q.name, "Ok.Test.Example");
        cr_expect_eq(q.qtype, CORDON_DNS_TYPE_A);
        cr_expect_eq(q.qclass, CORDON_DNS_CLASS_IN);
        cr_expect_eq(q.question_len, n - 12);

        n = make_query(b, 1, "example.com", CORDON_DNS_TYPE_AAAA, true);
        cr_assert_eq(cordon_dns_query_parse(b, n, &q), 0);
        cr_expect(q.edns);
        cr_expect(q.dnssec_ok);
        cr_expect_eq(q.edns_size, 4096);
        cr_expect_eq(q.question_len, n - 12 - 11);

        n = make_query(b, 1, "", CORDON_DNS_TYPE_A, false);
        cr_assert_eq(cordon_dns_query_parse(b, n, &q), 0);
        cr_expect_str_eq(q.name, "");
}

Test(dns_msg, parse_refusals)
{
        uint8_t b[600];
        struct cordon_dns_query q;
        size_t n = make_query(b, 7, "a.example", CORDON_DNS_TYPE_A, false);
        cr_expect_eq(cordon_dns_query_parse(b, 11, &q), -EPROTO);
        b[2] |= 0x80; /* a response */
        cr_expect_eq(cordon_dns_query_parse(b, n, &q), -EPROTO);
        b[2] &= 0x7f;
        b[2] |= 0x08; /* opcode 1 */
        cr_expect_eq(cordon_dns_query_parse(b, n, &q), -EINVAL);
        cr_expect_eq(q.id, 7);
        b[2] &= (uint8_t)~0x08;
        b[5] = 2; /* two questions */
        cr_expect_eq(cordon_dns_query_parse(b, n, &q), -EINVAL);
        b[5] = 1;
        b[7] = 1; /* an answer record */
        cr_expect_eq(cordon_dns_query_parse(b, n, &q), -EINVAL);
        b[7] = 0;
        cr_expect_eq(cordon_dns_query_parse(b, n + 1, &q), -EINVAL); /* a trailing byte */
        cr_expect_eq(cordon_dns_query_parse(b, n - 1, &q), -EINVAL); /* cut */
        b[12] = 0xc0;                                                /* a compression pointer */
        cr_expect_eq(cordon_dns_query_parse(b, n, &q), -EINVAL);

        /* Bytes that would make the text ambiguous or unprintable. */
        /* "a.b" written with the dot as an escape, so the label holds the dot itself. */
        const char *bad[] = {"a\x2e\x62", "a b", "a\x01", "caf\xc3\xa9"};
        for (size_t i = 0; i < 4; i++) {
                n = make_query(b, 1, "x", CORDON_DNS_TYPE_A, false);
                /* one label holding the bad bytes, written by hand */
                size_t l = strlen(bad[i]);
                b[12] = (uint8_t)l;
                memcpy(b + 13, bad[i], l);
                b[13 + l] = 0;
                memcpy(b + 14 + l, "\0\1\0\1", 4);
                cr_expect_eq(cordon_dns_query_parse(b, 18 + l, &q), -EINVAL, "%zu", i);
        }
        /* A name over 253 bytes of text. */
        char longname[300] = "";
        for (int i = 0; i < 5; i++)
                strcat(longname, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.");
        strcat(longname, "bbbbb");
        n = make_query(b, 1, longname, CORDON_DNS_TYPE_A, false);
        cr_expect_eq(cordon_dns_query_parse(b, n, &q), -EINVAL);
        /* Over 512 bytes. */
        n = make_query(b, 1, "a", CORDON_DNS_TYPE_A, true);
        b[n - 2] = 0x01, b[n - 1] = 0x00; /* 256 bytes of options */
        memset(b + n, 0, 256);
        cr_expect_eq(cordon_dns_query_parse(b, n + 256, &q), 0);
        b[n - 2] = 0x02;
        memset(b + n + 256, 0, 256);
        cr_expect_eq(cordon_dns_query_parse(b, n + 512, &q), -EINVAL);
}

Test(dns_msg, meta_types)
{
        cr_expect(cordon_dns_qtype_is_meta(255));
        cr_expect(cordon_dns_qtype_is_meta(252));
        cr_expect(cordon_dns_qtype_is_meta(41));
        cr_expect_not(cordon_dns_qtype_is_meta(CORDON_DNS_TYPE_A));
        cr_expect_not(cordon_dns_qtype_is_meta(16)); /* TXT */
        cr_expect_not(cordon_dns_qtype_is_meta(65)); /* HTTPS */
}

Test(dns_msg, build_forwarded)
{
        uint8_t b[512], out[512];
        size_t n = make_query(b, 9, "Ok.Example", CORDON_DNS_TYPE_A, true);
        struct cordon_dns_query q;
        cr_assert_eq(cordon_dns_query_parse(b, n, &q), 0);
        int k = cordon_dns_query_build(&q, "ok.example", 0x1234, out, sizeof(out));
        cr_assert_eq(k, (int)n);
        cr_expect_eq(out[0], 0x12);
        cr_expect_eq(out[1], 0x34);
        cr_expect_eq(out[2], 0x01); /* RD */
        /* The name as given (normalised), the type and class as asked. */
        cr_expect_eq(memcmp(out + 12, "\2ok\7example\0\0\1\0\1", 16), 0);
        /* OPT with the advertised size capped at 1232 and the DO bit kept. */
        cr_expect_eq(out[n - 11 + 3], 1232 >> 8);
        cr_expect_eq(out[n - 11 + 4], 1232 & 0xff);
        cr_expect_eq(out[n - 11 + 7], 0x80);
        struct cordon_dns_query again;
        cr_assert_eq(cordon_dns_query_parse(out, (size_t)k, &again), 0);
        cr_expect_str_eq(again.name, "ok.example");

        cr_expect_eq(cordon_dns_query_build(&q, "ok..example", 1, out, sizeof(out)), -EINVAL);
        cr_expect_eq(cordon_dns_query_build(&q, "ok.example.", 1, out, sizeof(out)), -EINVAL);
        cr_expect_eq(cordon_dns_query_build(&q, "ok.example", 1, out, 20), -ENOBUFS);
        /* The root. */
        q.edns = false;
        cr_expect_eq(cordon_dns_query_build(&q, "", 1, out, sizeof(out)), 17);
}

Test(dns_msg, reply)
{
        uint8_t b[512], out[512];
        size_t n = make_query(b, 0xbeef, "blocked.example", CORDON_DNS_TYPE_A, true);
        struct cordon_dns_query q;
        cr_assert_eq(cordon_dns_query_parse(b, n, &q), 0);
        size_t k = cordon_dns_reply(b, n, &q, CORDON_DNS_REFUSED, out, sizeof(out));
        cr_assert_eq(k, 12 + q.question_len);
        cr_expect_eq(out[0], 0xbe);
        cr_expect_eq(out[1], 0xef);
        cr_expect_eq(out[2], 0x81); /* QR, RD */
        cr_expect_eq(out[3], 0x85); /* RA, REFUSED */
        cr_expect_eq(cordon_dns_rcode(out), CORDON_DNS_REFUSED);
        cr_expect_eq(out[5], 1);
        cr_expect_eq(out[7] | out[9] | out[11], 0);
        cr_expect_eq(memcmp(out + 12, b + 12, q.question_len), 0);
        /* Unparsed: the header only. */
        struct cordon_dns_query none = {0};
        cr_expect_eq(cordon_dns_reply(b, n, &none, CORDON_DNS_FORMERR, out, sizeof(out)), 12);
        cr_expect_eq(out[5], 0);
        cr_expect_eq(cordon_dns_reply(b, 11, &none, CORDON_DNS_FORMERR, out, sizeof(out)), 0);
}

struct seen {
        char addrs[8][INET6_ADDRSTRLEN];
        size_t n;
        int stop_at;
};

static int collect(void *userdata, const struct cordon_net_addr *a)
{
        struct seen *s = userdata;
        cordon_net_addr_format(a, s->addrs[s->n], sizeof(s->addrs[0]));
        s->n++;
        return s->stop_at && (int)s->n == s->stop_at ? -EPERM : 0;
}

/* An answer to "ok.example" A: a CNAME (compressed owner), an A, an AAAA in the additional
 * section, and a TXT record between them. */
static size_t make_answer(uint8_t *b, uint16_t id)
{
        const uint8_t head[] = {
            (uint8_t)(id >> 8), (uint8_t)id, 0x81, 0x80, 0, 1, 0, 3, 0, 0, 0, 1};
        const uint8_t question[] = "\2ok\7example\0\0\1\0\1";
        const uint8_t rrs[] = {/* ok.example CNAME www.ok.example */
                               0xc0, 12, 0, 5, 0, 1, 0, 0, 0, 60, 0, 6, 3, 'w', 'w', 'w', 0xc0, 12,
                               /* www.ok.example A 198.51.100.7 */
                               0xc0, 28, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 198, 51, 100, 7,
                               /* TXT */
                               0xc0, 12, 0, 16, 0, 1, 0, 0, 0, 60, 0, 3, 2, 'h', 'i',
                               /* AAAA 2001:db8::1 */
                               0xc0, 12, 0, 28, 0, 1, 0, 0, 0, 60, 0, 16, 0x20, 0x01, 0x0d, 0xb8, 0,
                               0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        memcpy(b, head, sizeof(head));
        memcpy(b + 12, question, 16);
        memcpy(b + 28, rrs, sizeof(rrs));
        return 28 + sizeof(rrs);
}

Test(dns_msg, answer_walk)
{
        uint8_t b[512];
        size_t n = make_answer(b, 0x5151);
        const uint8_t *question = (const uint8_t *)"\2ok\7example\0\0\1\0\1";
        struct seen s = {0};
        cr_assert_eq(cordon_dns_answer_walk(b, n, 0x5151, question, 16, collect, &s), 0);
        cr_assert_eq(s.n, 2);
        cr_expect_str_eq(s.addrs[0], "198.51.100.7");
        cr_expect_str_eq(s.addrs[1], "2001:db8::1");
        /* The question compared without regard to the letters' case. */
        const uint8_t *upper = (const uint8_t *)"\2OK\7Example\0\0\1\0\1";
        s = (struct seen){0};
        cr_expect_eq(cordon_dns_answer_walk(b, n, 0x5151, upper, 16, collect, &s), 0);
        /* A refusal stops the walk. */
        s = (struct seen){.stop_at = 1};
        cr_expect_eq(cordon_dns_answer_walk(b, n, 0x5151, question, 16, collect, &s), -EPERM);
        cr_expect_eq(s.n, 1);
        /* Not this answer: another id, another question, another type, not a response. */
        cr_expect_eq(cordon_dns_answer_walk(b, n, 0x5152, question, 16, collect, &s), -EBADMSG);
        const uint8_t *other = (const uint8_t *)"\2ok\7exampla\0\0\1\0\1";
        cr_expect_eq(cordon_dns_answer_walk(b, n, 0x5151, other, 16, collect, &s), -EBADMSG);
        const uint8_t *aaaa = (const uint8_t *)"\2ok\7example\0\0\x1c\0\1";
        cr_expect_eq(cordon_dns_answer_walk(b, n, 0x5151, aaaa, 16, collect, &s), -EBADMSG);
        b[2] &= 0x7f;
        cr_expect_eq(cordon_dns_answer_walk(b, n, 0x5151, question, 16, collect, &s), -EBADMSG);
        b[2] |= 0x80;
        /* Every cut of the records is refused, never read past. */
        for (size_t k = 28; k < n; k++) {
                s = (struct seen){0};
                int r = cordon_dns_answer_walk(b, k, 0x5151, question, 16, collect, &s);
                cr_expect(r == -EBADMSG, "cut at %zu: %d", k, r);
        }
}
