/* URL paths of the network rules (see net-path.h): a pattern's path, a request's path in its
 * one comparable form, and the segment-boundary prefix test between them. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "lib/net/net-path.h"
#include "shared/macro.h"

static bool is_alnum(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* RFC 3986's pchar without '%' (no encoding in a pattern), ';' (path parameters) and '*'. */
static bool pattern_char(char c)
{
        return is_alnum(c) || (c && strchr("-._~!$&'()+,=:@", c));
}

/* The end of a segment [@seg, @end): refused when it is empty, "." or "..", or ends in '.' or a
 * space. NULL when it is fine. */
static const char *segment_problem(const char *seg, const char *end, bool request)
{
        size_t n = (size_t)(end - seg);
        if (n == 0)
                return request ? "an empty segment (\"//\") in the request path"
                               : "empty segment (\"//\") in the path";
        if ((n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.'))
                return request ? "a \".\" or \"..\" segment in the request path"
                               : "\".\" or \"..\" segment in the path";
        if (end[-1] == '.' || end[-1] == ' ')
                return request ? "a segment of the request path that ends in \".\" or a space"
                               : "a segment of the path ends in \".\"";
        return NULL;
}

int cordon_net_path_pattern(const char *s, size_t len, char *out, const char **ret_reason)
{
        const char *why = NULL;
        if (len == 0 || s[0] != '/')
                why = "a path starts with \"/\"";
        while (!why && len > 1 && s[len - 1] == '/')
                len--; /* "/api/" is "/api" */
        if (!why && len == 1)
                why = "a path of \"/\" alone (write the host without it)";
        for (size_t i = 1; !why && i < len; i++) {
                char c = s[i];
                if (c == '%')
                        why = "percent-encoding in a path entry (write the character itself)";
                else if (c == '*')
                        why = "a wildcard in the path (a path entry covers everything under it "
                              "already)";
                else if (c == '?' || c == '#')
                        why = "a query or fragment in a path entry";
                else if (c == ';')
                        why = "path parameters (\";\") in a path entry";
                else if (c != '/' && !pattern_char(c))
                        why = "character not allowed in a path";
        }
        for (size_t i = 1, seg = 1; !why && i <= len; i++)
                if (i == len || s[i] == '/') {
                        why = segment_problem(s + seg, s + i, false);
                        seg = i + 1;
                }
        if (why) {
                if (ret_reason)
                        *ret_reason = why;
                return -EINVAL;
        }
        memcpy(out, s, len);
        out[len] = 0;
        return 0;
}

/* One byte of a request path at @s (@left bytes there) into *@ret: a literal or a decoded
 * escape. Returns how many bytes it took, 0 with *@why on refusal. */
static size_t path_byte(const char *s, size_t left, char *ret, const char **why)
{
        if (s[0] == '\\') {
                *why = "a \"\\\" in the request path (some servers read it as \"/\")";
                return 0;
        }
        if (s[0] == '#') {
                *why = "a fragment (\"#\") in the request path";
                return 0;
        }
        if (s[0] == ';') {
                *why = "path parameters (\";\") in the request path (servers read them "
                       "differently)";
                return 0;
        }
        if (s[0] != '%') {
                if ((unsigned char)s[0] <= ' ' || (unsigned char)s[0] >= 0x7f) {
                        /* The HTTP parser refuses these first; this is for any other caller. */
                        *why = "a control, space or non-ASCII byte in the request path";
                        return 0;
                }
                *ret = s[0];
                return 1;
        }
        int hi = left >= 3 ? unhexchar(s[1]) : -1, lo = left >= 3 ? unhexchar(s[2]) : -1;
        if (hi < 0 || lo < 0) {
                *why = "a malformed percent-encoding in the request path";
                return 0;
        }
        char c = (char)(hi << 4 | lo);
        if (c == '%')
                *why = "double percent-encoding (\"%25\") in the request path";
        else if (c == '/' || c == '\\')
                *why = "an encoded \"/\" or \"\\\" in the request path (servers read it "
                       "differently)";
        else if (c == '?' || c == '#' || c == ';')
                *why = "an encoded \"?\", \"#\" or \";\" in the request path";
        else if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
                *why = "an encoded control or non-ASCII byte in the request path";
        if (*why)
                return 0;
        *ret = c;
        return 3;
}

int cordon_net_path_normalize(const char *s, size_t len, char *out, const char **ret_reason)
{
        const char *why = NULL;
        const char *q = memchr(s, '?', len);
        if (q)
                len = (size_t)(q - s); /* the query is no part of the path */
        size_t o = 0, seg = 1;
        out[o++] = '/';
        if (len > 0 && s[0] != '/')
                why = "a request path that does not start with \"/\"";
        /* Byte by byte from after the first '/', each segment checked once it ends (decoded,
         * so that "%2e%2e" is the ".." it stands for). */
        for (size_t i = 1; !why && len > 0;) {
                if (i == len || s[i] == '/') {
                        bool last = i == len;
                        /* An empty last segment ("/" alone, "/api/") is fine. */
                        if (!(last && o == seg))
                                why = segment_problem(out + seg, out + o, true);
                        if (why || last)
                                break;
                        out[o++] = '/';
                        seg = o;
                        i++;
                        continue;
                }
                size_t took = path_byte(s + i, len - i, &out[o], &why);
                if (took == 0)
                        break;
                o++;
                i += took;
        }
        if (why) {
                if (ret_reason)
                        *ret_reason = why;
                return -EINVAL;
        }
        out[o] = 0;
        return 0;
}

static char lower(char c)
{
        return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool same_bytes(const char *a, const char *b, size_t n, bool fold)
{
        if (!fold)
                return memcmp(a, b, n) == 0;
        for (size_t i = 0; i < n; i++)
                if (lower(a[i]) != lower(b[i]))
                        return false;
        return true;
}

bool cordon_net_path_under(const char *path, const char *prefix, bool fold)
{
        size_t n = strlen(prefix);
        return strlen(path) >= n && same_bytes(path, prefix, n, fold) &&
               (path[n] == 0 || path[n] == '/');
}

bool cordon_net_path_nested(const char *a, const char *b)
{
        return cordon_net_path_under(a, b, true) || cordon_net_path_under(b, a, true);
}
