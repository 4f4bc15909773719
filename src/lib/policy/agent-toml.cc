/* codex's config.toml read as JSON and edited in place (agent-toml.h). toml++ is built into this
 * translation unit (header-only, without its exceptions: parse errors are values), so that
 * nothing of it is loaded at run time but libstdc++; every entry point catches whatever
 * libstdc++ throws (std::bad_alloc) and returns -errno. */
#include "lib/policy/agent-toml.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#undef TOML_HEADER_ONLY
#define TOML_HEADER_ONLY           1
#define TOML_EXCEPTIONS            0
#define TOML_ENABLE_FORMATTERS     0
#define TOML_ENABLE_WINDOWS_COMPAT 0
/* Arrays and inline tables nested at most (the parser recurses through them). */
#define TOML_MAX_NESTED_VALUES 32
#include <toml++/toml.h>

namespace
{

constexpr size_t WHY_MAX = CORDON_AGENT_TOML_WHY_MAX;

__attribute__((format(printf, 2, 3))) void set_why(char *why, const char *fmt, ...)
{
        if (!why)
                return;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, WHY_MAX, fmt, ap);
        va_end(ap);
        /* What is quoted may come from the sandbox's copy: printable ASCII only. */
        for (char *c = why; *c; c++)
                if ((unsigned char)*c < ' ' || (unsigned char)*c >= 0x7f)
                        *c = '?';
}

using path_t = std::vector<std::string>;

/* A key path for a message: its keys joined by dots, bounded. */
std::string path_name(const path_t &path)
{
        std::string s;
        for (const auto &k : path) {
                if (!s.empty())
                        s += '.';
                s += k;
                if (s.size() > 60) {
                        s.resize(60);
                        s += "...";
                        break;
                }
        }
        return s.empty() ? std::string("(the top level)") : s;
}

/* The parser makes a table per segment of a dotted key or header, and frees them recursively:
 * a key of thousands of segments would exhaust the stack. Keys do not span lines, so a line's
 * dots bound its segments (the string values on it count too: too many refuses the file). */
bool too_many_dots(std::string_view text)
{
        size_t dots = 0;
        for (char c : text) {
                if (c == '\n')
                        dots = 0;
                else if (c == '.' && ++dots > CORDON_AGENT_TOML_LINE_DOTS_MAX)
                        return true;
        }
        return false;
}

int parse(std::string_view text, toml::table &ret, char *why)
{
        if (too_many_dots(text)) {
                set_why(why, "a line holds more than %u dots", CORDON_AGENT_TOML_LINE_DOTS_MAX);
                return -EINVAL;
        }
        toml::parse_result r = toml::parse(text);
        if (!r) {
                const toml::parse_error &e = r.error();
                std::string_view d = e.description();
                set_why(why, "line %u: %.*s", (unsigned)e.source().begin.line,
                        (int)std::min<size_t>(d.size(), 100), d.data());
                return -EINVAL;
        }
        ret = std::move(r).table();
        return 0;
}

/* The [null, "TEXT"] of a value JSON cannot hold as itself. */
int marker(const char *text, json_t **ret)
{
        json_t *a = json_array();
        if (!a || json_array_append_new(a, json_null()) < 0 ||
            json_array_append_new(a, json_string(text)) < 0 || json_array_size(a) != 2) {
                json_decref(a);
                return -ENOMEM;
        }
        *ret = a;
        return 0;
}

void put_date(std::string &o, const toml::date &d)
{
        char buf[32];
        snprintf(buf, sizeof(buf), "%04u-%02u-%02u", (unsigned)d.year, (unsigned)d.month,
                 (unsigned)d.day);
        o += buf;
}

void put_time(std::string &o, const toml::time &t)
{
        char buf[32];
        snprintf(buf, sizeof(buf), "%02u:%02u:%02u", (unsigned)t.hour, (unsigned)t.minute,
                 (unsigned)t.second);
        o += buf;
        if (t.nanosecond) {
                snprintf(buf, sizeof(buf), ".%09u", (unsigned)t.nanosecond);
                size_t n = strlen(buf);
                while (n > 2 && buf[n - 1] == '0')
                        n--;
                o.append(buf, n);
        }
}

void put_offset(std::string &o, const toml::time_offset &off)
{
        if (off.minutes == 0) {
                o += 'Z';
                return;
        }
        int m = off.minutes < 0 ? -off.minutes : off.minutes;
        char buf[16];
        snprintf(buf, sizeof(buf), "%c%02d:%02d", off.minutes < 0 ? '-' : '+', m / 60, m % 60);
        o += buf;
}

/* The JSON form of node @n, at @depth tables and arrays below the top. */
int to_json(const toml::node &n, unsigned depth, json_t **ret, char *why)
{
        if (depth > CORDON_AGENT_TOML_DEPTH_MAX) {
                set_why(why, "it nests deeper than %u levels", CORDON_AGENT_TOML_DEPTH_MAX);
                return -EINVAL;
        }
        std::string text;
        switch (n.type()) {
        case toml::node_type::table: {
                json_t *o = json_object();
                if (!o)
                        return -ENOMEM;
                for (auto &&[k, v] : *n.as_table()) {
                        std::string key(k.str());
                        json_t *child = nullptr;
                        if (key.find('\0') != std::string::npos) {
                                json_decref(o);
                                set_why(why, "a key holds a NUL character");
                                return -EINVAL;
                        }
                        int r = to_json(v, depth + 1, &child, why);
                        if (r < 0 || json_object_set_new(o, key.c_str(), child) < 0) {
                                json_decref(o);
                                return r < 0 ? r : -ENOMEM;
                        }
                }
                *ret = o;
                return 0;
        }
        case toml::node_type::array: {
                json_t *a = json_array();
                if (!a)
                        return -ENOMEM;
                for (auto &&v : *n.as_array()) {
                        json_t *child = nullptr;
                        int r = to_json(v, depth + 1, &child, why);
                        if (r < 0 || json_array_append_new(a, child) < 0) {
                                json_decref(a);
                                return r < 0 ? r : -ENOMEM;
                        }
                }
                *ret = a;
                return 0;
        }
        case toml::node_type::string: {
                const std::string &s = n.as_string()->get();
                *ret = json_stringn(s.data(), s.size());
                if (!*ret) {
                        set_why(why, "a string is not UTF-8");
                        return -EINVAL;
                }
                return 0;
        }
        case toml::node_type::integer:
                *ret = json_integer((json_int_t)n.as_integer()->get());
                return *ret ? 0 : -ENOMEM;
        case toml::node_type::floating_point: {
                double d = n.as_floating_point()->get();
                if (std::isnan(d))
                        return marker("nan", ret);
                if (std::isinf(d))
                        return marker(d < 0 ? "-inf" : "inf", ret);
                *ret = json_real(d);
                return *ret ? 0 : -ENOMEM;
        }
        case toml::node_type::boolean:
                *ret = json_boolean(n.as_boolean()->get());
                return *ret ? 0 : -ENOMEM;
        case toml::node_type::date:
                put_date(text, n.as_date()->get());
                return marker(text.c_str(), ret);
        case toml::node_type::time:
                put_time(text, n.as_time()->get());
                return marker(text.c_str(), ret);
        case toml::node_type::date_time: {
                const toml::date_time &dt = n.as_date_time()->get();
                put_date(text, dt.date);
                text += 'T';
                put_time(text, dt.time);
                if (dt.offset)
                        put_offset(text, *dt.offset);
                return marker(text.c_str(), ret);
        }
        case toml::node_type::none:
                break;
        }
        set_why(why, "a value of an unknown type");
        return -EINVAL;
}

int doc_to_json(std::string_view text, toml::table &doc, json_t **ret, char *why)
{
        int r = parse(text, doc, why);
        return r < 0 ? r : to_json(doc, 0, ret, why);
}

/* TOML text for JSON values (the form above read back). */

bool is_bare(std::string_view k)
{
        if (k.empty())
                return false;
        for (char c : k)
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-'))
                        return false;
        return true;
}

void put_string(std::string &o, std::string_view s)
{
        o += '"';
        for (char c : s) {
                unsigned char u = (unsigned char)c;
                switch (c) {
                case '"':
                        o += "\\\"";
                        break;
                case '\\':
                        o += "\\\\";
                        break;
                case '\b':
                        o += "\\b";
                        break;
                case '\t':
                        o += "\\t";
                        break;
                case '\n':
                        o += "\\n";
                        break;
                case '\f':
                        o += "\\f";
                        break;
                case '\r':
                        o += "\\r";
                        break;
                default:
                        if (u < 0x20 || u == 0x7f) {
                                char buf[8];
                                snprintf(buf, sizeof(buf), "\\u%04X", u);
                                o += buf;
                        } else
                                o += c;
                }
        }
        o += '"';
}

void put_key(std::string &o, std::string_view k)
{
        if (is_bare(k))
                o += k;
        else
                put_string(o, k);
}

std::string header_of(const path_t &path)
{
        std::string o = "[";
        for (size_t i = 0; i < path.size(); i++) {
                if (i)
                        o += '.';
                put_key(o, path[i]);
        }
        return o + "]";
}

/* A double as the shortest text that reads back as it, in TOML's float form. */
void put_real(std::string &o, double d)
{
        char buf[40];
        for (int prec = 1; prec <= 17; prec++) {
                snprintf(buf, sizeof(buf), "%.*g", prec, d);
                if (strtod(buf, nullptr) == d)
                        break;
        }
        o += buf;
        if (!strpbrk(buf, ".eE"))
                o += ".0";
}

int put_value(std::string &o, json_t *v, unsigned depth)
{
        if (depth > 2 * CORDON_AGENT_TOML_DEPTH_MAX)
                return -EINVAL;
        switch (json_typeof(v)) {
        case JSON_STRING:
                put_string(o, std::string_view(json_string_value(v), json_string_length(v)));
                return 0;
        case JSON_INTEGER: {
                char buf[32];
                snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
                o += buf;
                return 0;
        }
        case JSON_REAL:
                put_real(o, json_real_value(v));
                return 0;
        case JSON_TRUE:
                o += "true";
                return 0;
        case JSON_FALSE:
                o += "false";
                return 0;
        case JSON_ARRAY: {
                if (json_array_size(v) == 2 && json_is_null(json_array_get(v, 0)) &&
                    json_is_string(json_array_get(v, 1))) {
                        /* A date, a time, nan or inf: its text, which the form made. */
                        const char *t = json_string_value(json_array_get(v, 1));
                        if (!*t || strspn(t, "0123456789-+:.TZnaif") != strlen(t))
                                return -EINVAL;
                        o += t;
                        return 0;
                }
                o += '[';
                for (size_t i = 0; i < json_array_size(v); i++) {
                        if (i)
                                o += ", ";
                        int r = put_value(o, json_array_get(v, i), depth + 1);
                        if (r < 0)
                                return r;
                }
                o += ']';
                return 0;
        }
        case JSON_OBJECT: {
                if (json_object_size(v) == 0) {
                        o += "{}";
                        return 0;
                }
                o += "{ ";
                const char *key;
                json_t *w;
                bool first = true;
                json_object_foreach(v, key, w)
                {
                        if (!first)
                                o += ", ";
                        first = false;
                        put_key(o, key);
                        o += " = ";
                        int r = put_value(o, w, depth + 1);
                        if (r < 0)
                                return r;
                }
                o += " }";
                return 0;
        }
        case JSON_NULL:
                break;
        }
        return -EINVAL;
}

/* The edit of a host text: spans replaced (an insertion is an empty span), tables appended. */
struct edit {
        size_t begin, end;
        std::string text;
        size_t seq;
};

enum class kind { root, header, implicit, dotted, inline_table, array_of_tables };

struct editor {
        std::string_view text;
        std::vector<size_t> lines; /* each line's first byte */
        std::vector<edit> edits;
        std::vector<std::pair<std::string, std::string>> appended; /* header, its lines */
        const toml::table *root = nullptr;
        bool have_root_at = false;
        size_t root_at = 0;
        char *why = nullptr;

        explicit editor(std::string_view t) : text(t)
        {
                size_t bom = t.size() >= 3 && memcmp(t.data(), "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
                lines.push_back(bom);
                for (size_t i = bom; i < t.size(); i++)
                        if (t[i] == '\n')
                                lines.push_back(i + 1);
        }

        /* The byte of a parser position (line and column count from 1, the column in code
         * points); past a line's end, its end. */
        size_t offset(const toml::source_position &p) const
        {
                if (p.line == 0 || p.line > lines.size())
                        return text.size();
                size_t at = lines[p.line - 1];
                for (toml::source_index c = 1; c < p.column && at < text.size() && text[at] != '\n';
                     c++) {
                        unsigned char u = (unsigned char)text[at];
                        at += u < 0x80 ? 1 : u < 0xe0 ? 2 : u < 0xf0 ? 3 : 4;
                }
                return std::min(at, text.size());
        }

        size_t line_start(size_t at) const
        {
                while (at > lines[0] && text[at - 1] != '\n')
                        at--;
                return at;
        }

        /* The byte after the end of the line holding byte @at (its newline included). */
        size_t line_end(size_t at) const
        {
                size_t nl = text.find('\n', at);
                return nl == std::string_view::npos ? text.size() : nl + 1;
        }

        void add(size_t begin, size_t end, std::string t)
        {
                edits.push_back(edit{begin, end, std::move(t), edits.size()});
        }

        std::string &block(const path_t &path)
        {
                std::string h = header_of(path);
                for (auto &b : appended)
                        if (b.first == h)
                                return b.second;
                appended.emplace_back(std::move(h), std::string());
                return appended.back().second;
        }

        int refuse(const path_t &path, const char *what)
        {
                set_why(why, "'%s' %s", path_name(path).c_str(), what);
                return -ENOTSUP;
        }

        kind kind_of(const toml::table &t, const path_t &path) const;
        size_t last_end(const toml::node &n, const path_t &path) const;
        size_t root_point();
        int add_key(const std::vector<const toml::table *> &chain, path_t &path, json_t *w);
        void add_table(path_t &path, json_t *obj);
        int remove(const toml::table &parent, const toml::key &k, const toml::node &n,
                   path_t &path);
        int replace(const toml::node &n, const path_t &path, json_t *w);
        int walk(std::vector<const toml::table *> &chain, json_t *want, path_t &path);
        int apply(std::string &out);
};

/* How table @t at @path is made: a header of its own, implicitly by a deeper header, dotted
 * keys, inline, an element of an array of tables. */
kind editor::kind_of(const toml::table &t, const path_t &path) const
{
        if (&t == root)
                return kind::root;
        if (t.is_inline())
                return kind::inline_table;
        size_t b = offset(t.source().begin), e = offset(t.source().end);
        if (b >= text.size() || text[b] != '[')
                return kind::dotted;
        if (b + 1 < text.size() && text[b + 1] == '[')
                return kind::array_of_tables;
        /* A header names this table or one below it: read it alone. */
        toml::table h;
        if (e <= b || parse(text.substr(b, e - b), h, nullptr) < 0)
                return kind::array_of_tables; /* not understood: nothing is changed there */
        path_t named;
        const toml::table *at = &h;
        while (at && at->size() == 1) {
                named.emplace_back(at->begin()->first.str());
                at = at->begin()->second.as_table();
        }
        return named == path ? kind::header : kind::implicit;
}

/* The end of what defines @n in its table's lines: a value's end, or the last of the values
 * of a table made by dotted keys. */
size_t editor::last_end(const toml::node &n, const path_t &path) const
{
        const toml::table *t = n.as_table();
        if (!t || t->is_inline())
                return offset(n.source().end);
        size_t end = 0;
        path_t sub = path;
        for (auto &&[k, v] : *t) {
                sub.emplace_back(k.str());
                const toml::table *vt = v.as_table();
                if (!vt || kind_of(*vt, sub) == kind::dotted || vt->is_inline())
                        end = std::max(end, last_end(v, sub));
                sub.pop_back();
        }
        return end;
}

/* Where a new top-level key goes: after the line of the last one, or first in the file. */
size_t editor::root_point()
{
        if (have_root_at)
                return root_at;
        size_t end = 0;
        bool any = false;
        path_t path(1);
        for (auto &&[k, v] : *root) {
                path[0] = std::string(k.str());
                const toml::table *t = v.as_table();
                const toml::array *a = v.as_array();
                if (t && !t->is_inline() && kind_of(*t, path) != kind::dotted)
                        continue;
                if (a && a->is_array_of_tables() && !a->empty() &&
                    !a->front().as_table()->is_inline())
                        continue;
                size_t e = last_end(v, path);
                if (e > 0) {
                        end = std::max(end, e);
                        any = true;
                }
        }
        root_at = any ? line_end(end - 1) : lines[0];
        have_root_at = true;
        return root_at;
}

/* New tables at the end of the file: @obj at @path, a header for its values (or for an empty
 * table), its tables below with headers of their own. */
void editor::add_table(path_t &path, json_t *obj)
{
        const char *key;
        json_t *v;
        bool values = json_object_size(obj) == 0;
        json_object_foreach(obj, key, v) values = values || !json_is_object(v);
        if (values) {
                std::string &b = block(path);
                json_object_foreach(obj, key, v)
                {
                        if (json_is_object(v))
                                continue;
                        put_key(b, key);
                        b += " = ";
                        put_value(b, v, 0);
                        b += '\n';
                }
        }
        json_object_foreach(obj, key, v)
        {
                if (!json_is_object(v))
                        continue;
                path.emplace_back(key);
                add_table(path, v);
                path.pop_back();
        }
}

bool is_header_array(const toml::node &n)
{
        const toml::array *a = n.as_array();
        if (!a)
                return false;
        for (auto &&e : *a)
                if (e.is_table() && !e.as_table()->is_inline())
                        return true;
        return false;
}

/* Key @path (its table the last of @chain, which runs from the root) added, holding @w. */
int editor::add_key(const std::vector<const toml::table *> &chain, path_t &path, json_t *w)
{
        path_t at;
        kind k = kind::root;
        for (size_t i = 0; i < chain.size(); i++) {
                if (i > 0)
                        at.push_back(path[i - 1]);
                k = kind_of(*chain[i], at);
                if (k == kind::dotted)
                        return refuse(at, "is a table made by dotted keys: a key is not added "
                                          "to it");
                if (k == kind::inline_table)
                        return refuse(at, "is an inline table: a key is not added to it");
                if (k == kind::array_of_tables)
                        return refuse(at, "is in an array of tables");
        }
        /* Checked by the caller's walk; no value in it can fail to print but a null. */
        std::string probe;
        if (put_value(probe, w, 0) < 0)
                return refuse(path, "holds a value TOML cannot");
        if (json_is_object(w)) {
                add_table(path, w);
                return 0;
        }
        std::string line;
        put_key(line, path.back());
        line += " = ";
        line += probe;
        line += '\n';
        if (k == kind::implicit) {
                path_t parent(path.begin(), path.end() - 1);
                block(parent) += line;
        } else if (k == kind::header) {
                size_t e = offset(chain.back()->source().end);
                size_t at_line = line_end(e > 0 ? e - 1 : 0);
                add(at_line, at_line, std::move(line));
        } else {
                size_t p = root_point();
                add(p, p, std::move(line));
        }
        return 0;
}

int editor::replace(const toml::node &n, const path_t &path, json_t *w)
{
        const toml::table *t = n.as_table();
        if (t && !t->is_inline())
                return refuse(path, "is a table in the file: it is not replaced by a value");
        if (is_header_array(n))
                return refuse(path, "is an array of tables");
        std::string value;
        if (put_value(value, w, 0) < 0)
                return refuse(path, "holds a value TOML cannot");
        add(offset(n.source().begin), offset(n.source().end), std::move(value));
        return 0;
}

/* Key @k of @parent (at @path, its last step) removed with what it holds. */
int editor::remove(const toml::table &parent, const toml::key &k, const toml::node &n, path_t &path)
{
        const toml::table *t = n.as_table();
        if (t && !t->is_inline()) {
                kind tk = kind_of(*t, path);
                if (tk == kind::dotted)
                        return refuse(path, "is a table made by dotted keys: it is not removed");
                if (tk != kind::header && tk != kind::implicit)
                        return refuse(path, "is in an array of tables");
                if (tk == kind::header) {
                        size_t b = offset(t->source().begin), e = offset(t->source().end);
                        add(line_start(b), line_end(e > b ? e - 1 : b), std::string());
                }
                for (auto &&[ck, cv] : *t) {
                        path.emplace_back(ck.str());
                        int r = remove(*t, ck, cv, path);
                        path.pop_back();
                        if (r < 0)
                                return r;
                }
                return 0;
        }
        if (is_header_array(n))
                return refuse(path, "is an array of tables: it is not removed");
        path_t ppath(path.begin(), path.end() - 1);
        kind pk = kind_of(parent, ppath);
        if (pk != kind::root && pk != kind::header)
                return refuse(path, "is not a line of its own: it is not removed");
        size_t kb = offset(k.source().begin), ls = line_start(kb);
        for (size_t i = ls; i < kb; i++)
                if (text[i] != ' ' && text[i] != '\t')
                        return refuse(path, "is not a line of its own: it is not removed");
        size_t ve = offset(n.source().end);
        add(ls, line_end(ve > kb ? ve - 1 : kb), std::string());
        return 0;
}

/* Table @chain.back() (at @path) made to read as @want. */
int editor::walk(std::vector<const toml::table *> &chain, json_t *want, path_t &path)
{
        const toml::table &t = *chain.back();
        const char *key;
        json_t *w;
        int r = 0;
        json_object_foreach(want, key, w)
        {
                const toml::node *n = t.get(std::string_view(key));
                path.emplace_back(key);
                const toml::table *sub = n ? n->as_table() : nullptr;
                if (!n)
                        r = add_key(chain, path, w);
                else if (sub && !sub->is_inline() && json_is_object(w)) {
                        chain.push_back(sub);
                        r = walk(chain, w, path);
                        chain.pop_back();
                } else {
                        json_t *have = nullptr;
                        r = to_json(*n, (unsigned)path.size(), &have, why);
                        if (r >= 0 && !json_equal(have, w))
                                r = replace(*n, path, w);
                        json_decref(have);
                }
                path.pop_back();
                if (r < 0)
                        return r;
        }
        for (auto &&[k, v] : t) {
                std::string name(k.str());
                if (json_object_get(want, name.c_str()))
                        continue;
                path.push_back(std::move(name));
                r = remove(t, k, v, path);
                path.pop_back();
                if (r < 0)
                        return r;
        }
        return 0;
}

int editor::apply(std::string &out)
{
        std::stable_sort(edits.begin(), edits.end(), [](const edit &a, const edit &b) {
                return a.begin != b.begin ? a.begin < b.begin : a.seq < b.seq;
        });
        size_t pos = 0;
        for (const edit &e : edits) {
                if (e.begin < pos || e.end < e.begin || e.end > text.size()) {
                        set_why(why, "its edits would overlap");
                        return -ENOTSUP;
                }
                out.append(text.substr(pos, e.begin - pos));
                if (!e.text.empty() && e.begin == e.end && !out.empty() && out.back() != '\n' &&
                    e.begin == text.size())
                        out += '\n';
                out += e.text;
                pos = e.end;
        }
        out.append(text.substr(pos));
        for (const auto &b : appended) {
                if (!out.empty() && out.back() != '\n')
                        out += '\n';
                if (!out.empty())
                        out += '\n';
                out += b.first;
                out += '\n';
                out += b.second;
        }
        return 0;
}

int edit_text(std::string_view text, json_t *want, std::string &out, char *why)
{
        toml::table doc;
        json_t *have = nullptr;
        int r = doc_to_json(text, doc, &have, why);
        if (r < 0)
                return r;
        json_decref(have);
        editor ed(text);
        ed.root = &doc;
        ed.why = why;
        std::vector<const toml::table *> chain{&doc};
        path_t path;
        if ((r = ed.walk(chain, want, path)) < 0 || (r = ed.apply(out)) < 0)
                return r;
        /* Whatever the edit: the result reads as what was meant, or nothing changes. */
        toml::table again;
        json_t *got = nullptr;
        char inner[WHY_MAX] = "";
        r = doc_to_json(out, again, &got, inner);
        if (r == -ENOMEM)
                return r;
        bool same = r >= 0 && json_equal(got, want);
        json_decref(got);
        if (!same) {
                if (*inner)
                        set_why(why, "the edited file would not read as meant (%s)", inner);
                else
                        set_why(why, "the edited file would not read as meant");
                return -ENOTSUP;
        }
        return 0;
}

} // namespace

extern "C" int cordon_agent_toml_to_json(const char *text, size_t len, json_t **ret, char *why)
{
        if (why)
                *why = 0;
        try {
                toml::table doc;
                return doc_to_json(std::string_view(text, len), doc, ret, why);
        } catch (const std::bad_alloc &) {
                return -ENOMEM;
        } catch (...) {
                set_why(why, "it could not be read");
                return -EINVAL;
        }
}

extern "C" int cordon_agent_toml_edit(const char *text, size_t len, json_t *want, char **ret,
                                      size_t *ret_len, char *why)
{
        if (why)
                *why = 0;
        if (!json_is_object(want))
                return -EINVAL;
        try {
                std::string out;
                int r = edit_text(std::string_view(text, len), want, out, why);
                if (r < 0)
                        return r;
                char *s = (char *)malloc(out.size() + 1);
                if (!s)
                        return -ENOMEM;
                memcpy(s, out.data(), out.size());
                s[out.size()] = 0;
                *ret = s;
                *ret_len = out.size();
                return 0;
        } catch (const std::bad_alloc &) {
                return -ENOMEM;
        } catch (...) {
                set_why(why, "it could not be edited");
                return -ENOTSUP;
        }
}
