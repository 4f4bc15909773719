/* Host-name globs (see net-glob.h): matching a name, and the inclusion and intersection of two
 * globs that cordon_net_rule_covers() and cordon_net_rule_overlaps() ask about. */
#include <string.h>

#include "lib/net/net-glob.h"

/* Longer than any glob the parser makes (a name is at most 253 bytes, "*." in front of a
 * suffix two more): the tables below live on the stack. */
#define GLOB_MAX 260

bool cordon_net_glob_match(const char *glob, const char *name)
{
        const char *p = glob, *s = name, *star = NULL, *retry = NULL;
        while (*s) {
                if (*p == '*') {
                        star = p++;
                        retry = s;
                } else if (*p && (*p == '?' || *p == *s)) {
                        p++;
                        s++;
                } else if (star) {
                        /* The last `*` takes one more character; earlier ones never need to
                         * take back what they took (the classic one-backtrack match). */
                        p = star + 1;
                        s = ++retry;
                } else
                        return false;
        }
        while (*p == '*')
                p++;
        return *p == 0;
}

bool cordon_net_glob_includes(const char *outer, const char *inner)
{
        size_t m = strlen(outer), n = strlen(inner);
        if (m >= GLOB_MAX || n >= GLOB_MAX)
                return false;
        /* row[j]: outer's first i symbols match inner's first j, row by row over i. */
        bool prev[GLOB_MAX + 1], row[GLOB_MAX + 1];
        for (size_t j = 0; j <= n; j++)
                prev[j] = j == 0;
        for (size_t i = 1; i <= m; i++) {
                char b = outer[i - 1];
                for (size_t j = 0; j <= n; j++) {
                        char e = j > 0 ? inner[j - 1] : 0;
                        if (b == '*')
                                row[j] = prev[j] || (j > 0 && row[j - 1]);
                        else if (b == '?')
                                row[j] = j > 0 && e != '*' && prev[j - 1];
                        else
                                row[j] = j > 0 && e == b && prev[j - 1];
                }
                memcpy(prev, row, (n + 1) * sizeof(bool));
        }
        return prev[n];
}

static bool compatible(char x, char y)
{
        return x == '?' || y == '?' || x == y;
}

bool cordon_net_glob_intersects(const char *a, const char *b)
{
        size_t m = strlen(a), n = strlen(b);
        if (m >= GLOB_MAX || n >= GLOB_MAX)
                return true; /* never made by the parser; "may overlap" is the cautious side */
        /* r[i][j]: some string takes a's first i symbols and b's first j symbols. Each step
         * consumes a symbol of one glob or both, so rows in order see every predecessor. */
        bool prev[GLOB_MAX + 1], row[GLOB_MAX + 1];
        for (size_t i = 0; i <= m; i++) {
                for (size_t j = 0; j <= n; j++) {
                        bool r = i == 0 && j == 0;
                        char x = i > 0 ? a[i - 1] : 0, y = j > 0 ? b[j - 1] : 0;
                        /* A `*` that matches nothing, of a or of b. */
                        if (i > 0 && x == '*' && prev[j])
                                r = true;
                        if (j > 0 && y == '*' && row[j - 1])
                                r = true;
                        if (j > 0 && y != '*' && i < m && a[i] == '*' && row[j - 1])
                                r = true; /* a's next `*` eats the character b's symbol reads */
                        if (i > 0 && x != '*' && j < n && b[j] == '*' && prev[j])
                                r = true; /* b's next `*` eats the character a's symbol reads */
                        if (i > 0 && j > 0 && x != '*' && y != '*' && compatible(x, y) &&
                            prev[j - 1])
                                r = true;
                        row[j] = r;
                }
                memcpy(prev, row, (n + 1) * sizeof(bool));
        }
        return prev[n];
}

size_t cordon_net_glob_weight(const char *glob)
{
        size_t w = 0;
        for (const char *p = glob; *p; p++)
                w += *p != '*';
        return w;
}
