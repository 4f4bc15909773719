/* DNS messages as the filtered mode's resolver (lib/supervisor/dns-relay.c) sees them: a query from
 * the sandbox parsed into what the rules decide on (one question, its name as text), the query
 * cordon forwards rebuilt from those parts only (nothing else the sandbox wrote reaches the
 * host's resolver), the error replies it answers itself, and a walk over an upstream answer's
 * address records. Pure: no I/O, no allocation. Thread-safe. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/net/net-rules.h"

#define CORDON_DNS_QUERY_MAX  512  /* a query over UDP without EDNS: larger ones are refused */
#define CORDON_DNS_ANSWER_MAX 4096 /* an upstream answer; larger datagrams are cut and refused */
/* The UDP payload size cordon advertises upstream when the sandbox asked with EDNS (and never
 * more than the sandbox's own): the size DNS flag day 2020 settled on. */
#define CORDON_DNS_EDNS_SIZE 1232
#define CORDON_DNS_HEADER    12

enum cordon_dns_rcode {
        CORDON_DNS_NOERROR = 0,
        CORDON_DNS_FORMERR = 1,
        CORDON_DNS_SERVFAIL = 2,
        CORDON_DNS_NXDOMAIN = 3,
        CORDON_DNS_NOTIMP = 4,
        CORDON_DNS_REFUSED = 5,
};

#define CORDON_DNS_TYPE_A    1
#define CORDON_DNS_TYPE_AAAA 28
#define CORDON_DNS_TYPE_OPT  41
#define CORDON_DNS_CLASS_IN  1

struct cordon_dns_query {
        uint16_t id;
        bool rd, cd;        /* recursion desired, checking disabled: forwarded as asked */
        bool edns;          /* the query carried an OPT record */
        bool dnssec_ok;     /* its DO bit */
        uint16_t edns_size; /* its UDP payload size (at least 512) */
        uint16_t qtype, qclass;
        /* The question's name as dotted text without the trailing dot ("" for the root), as
         * the sandbox spelled it: labels hold only printable ASCII other than '.', so the text
         * has one reading. */
        char name[CORDON_NET_NAME_MAX + 1];
        size_t question_len; /* the question's bytes on the wire (name, type, class) */
};

/* Parses the query in @buf (@len bytes). Returns 0 with @ret filled; -EPROTO when it is not a
 * query anybody should answer (shorter than a header, or a response: the QR bit set), which the
 * caller drops; -EINVAL when it is a malformed or unsupported query (an opcode other than QUERY,
 * not exactly one question, answer or authority records, more than one additional record or
 * one that is not a well-formed OPT, a compressed or overlong name, a label with bytes outside
 * printable ASCII or a '.', trailing bytes, more than CORDON_DNS_QUERY_MAX bytes), which the
 * caller answers with cordon_dns_reply() (FORMERR); the id is set in @ret whenever the header
 * was read, and @ret->question_len when the question was. */
int cordon_dns_query_parse(const uint8_t *buf, size_t len, struct cordon_dns_query *ret);

/* Whether @qtype is a meta type no resolver is asked for on the sandbox's behalf: zone
 * transfers (AXFR, IXFR), ANY, MAILA, MAILB, OPT, TKEY and TSIG. */
bool cordon_dns_qtype_is_meta(uint16_t qtype);

/* Writes into @out (@size bytes) the query cordon sends upstream for @q, with id @id: RD and
 * CD as asked, one question of @name (normally @q's name, normalised), @q's type and class, and
 * an OPT record (payload size the smaller of @q's and CORDON_DNS_EDNS_SIZE, @q's DO bit, no
 * options) only when @q had one. Returns the length, or -ENOBUFS, -EINVAL (@name not a name of
 * at most CORDON_NET_NAME_MAX bytes of non-empty labels of at most 63 bytes). */
int cordon_dns_query_build(const struct cordon_dns_query *q, const char *name, uint16_t id,
                           uint8_t *out, size_t size);

/* Writes into @out (@size bytes, at least CORDON_DNS_QUERY_MAX) cordon's own reply with @rcode
 * to the query in @buf (@len bytes) that cordon_dns_query_parse() read into @q: its id and RD
 * bit, QR and RA set, and its question copied when @q->question_len says it was read (never an
 * answer record). Returns the length, or 0 when @buf has no header (nothing to answer). */
size_t cordon_dns_reply(const uint8_t *buf, size_t len, const struct cordon_dns_query *q,
                        enum cordon_dns_rcode rcode, uint8_t *out, size_t size);

/* Checks that @buf (@len bytes) is a response to a query with id @id whose question is the
 * @question_len bytes at @question (compared exactly, but for the letters' case): QR set,
 * opcode QUERY, one question. Then walks every record of every section and calls @fn with the
 * address of each A (class IN, 4 bytes) and AAAA (16 bytes) record, stopping at @fn's first
 * negative return. Returns 0, -EBADMSG (not that response, or a record that runs past the end
 * or a name that does), or what @fn returned. */
int cordon_dns_answer_walk(const uint8_t *buf, size_t len, uint16_t id, const uint8_t *question,
                           size_t question_len,
                           int (*fn)(void *userdata, const struct cordon_net_addr *addr),
                           void *userdata);

/* The response code of the response in @buf (at least a header). */
unsigned cordon_dns_rcode(const uint8_t *buf);
