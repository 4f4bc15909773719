/* Fuzz target for src/lib/net/dns-msg.c: the input as a query from the sandbox and as an answer
 * from upstream. Checks: results are the documented ones; an accepted query's name is printable
 * text without empty labels, and the query rebuilt from it parses back to the same question;
 * cordon's reply to anything with a header is a response with the query's id; the walk over an
 * answer reports only A and AAAA addresses and never reads past the input (ASan). */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "lib/net/dns-msg.h"

static int count(void *userdata, const struct cordon_net_addr *a)
{
        FUZZ_CHECK(a->family == AF_INET || a->family == AF_INET6);
        (*(size_t *)userdata)++;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        struct cordon_dns_query q;
        int r = cordon_dns_query_parse(data, size, &q);
        FUZZ_CHECK(r == 0 || r == -EPROTO || r == -EINVAL);
        if (r == 0) {
                size_t len = strlen(q.name);
                FUZZ_CHECK(len <= CORDON_NET_NAME_MAX);
                FUZZ_CHECK(q.question_len >= len + 5 && q.question_len <= size - 12);
                for (size_t i = 0; i < len; i++)
                        FUZZ_CHECK(q.name[i] > 0x20 && q.name[i] < 0x7f);
                FUZZ_CHECK(!strstr(q.name, "..") && q.name[0] != '.' &&
                           (len == 0 || q.name[len - 1] != '.'));
                uint8_t out[CORDON_DNS_QUERY_MAX];
                int k = cordon_dns_query_build(&q, q.name, 0x1234, out, sizeof(out));
                FUZZ_CHECK(k > 0);
                struct cordon_dns_query again;
                FUZZ_CHECK(cordon_dns_query_parse(out, (size_t)k, &again) == 0);
                FUZZ_CHECK(strcmp(again.name, q.name) == 0 && again.qtype == q.qtype &&
                           again.qclass == q.qclass && again.edns == q.edns &&
                           again.question_len == q.question_len);
                FUZZ_CHECK(memcmp(out + 12, data + 12, q.question_len) == 0);
        }
        uint8_t reply[CORDON_DNS_QUERY_MAX];
        size_t n = cordon_dns_reply(data, size, r == -EPROTO ? NULL : &q, CORDON_DNS_REFUSED, reply,
                                    sizeof(reply));
        FUZZ_CHECK(size < 12 ? n == 0 : n >= 12 && n <= sizeof(reply));
        if (n) {
                FUZZ_CHECK(reply[0] == data[0] && reply[1] == data[1] && (reply[2] & 0x80));
                FUZZ_CHECK(cordon_dns_rcode(reply) == CORDON_DNS_REFUSED);
        }
        /* As an answer to the question it carries (when it has a header and enough bytes). */
        if (size >= 12) {
                size_t qlen = r == 0 ? q.question_len : (size - 12 > 20 ? 20 : size - 12);
                size_t addrs = 0;
                int w = cordon_dns_answer_walk(data, size, (uint16_t)(data[0] << 8 | data[1]),
                                               data + 12, qlen, count, &addrs);
                FUZZ_CHECK(w == 0 || w == -EBADMSG);
                FUZZ_CHECK(addrs <= size / 14);
        }
        return 0;
}
