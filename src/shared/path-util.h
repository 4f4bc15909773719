/* Pure path string helpers: no filesystem access. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* True when @path equals @parent or lies below it on a path-component boundary
 * ("/foo" is not a parent of "/foobar"). Both must be normalised absolute paths. */
bool path_is_below(const char *path, const char *parent);
/* The same, with @n the length of @path: for one path against many parents. */
bool path_is_below_n(const char *path, size_t n, const char *parent);
/* True for an absolute path with nothing for realpath() to normalize: no empty, "." or ".."
 * component and no trailing slash. */
bool path_is_normal(const char *path);
bool path_is_absolute(const char *p);
/* Lexically normalises an absolute path: collapses "//" and "/./", strips a trailing "/".
 * Refuses ".." components with -EINVAL (callers resolve those with realpath). */
int path_normalize(const char *p, char **ret);
/* Joins @a and @b with one "/" between them. Returns NULL on allocation failure. */
char *path_join(const char *a, const char *b);
/* Number of components: "/" is 0, "/usr" is 1, "/usr/lib" is 2. */
unsigned path_depth(const char *p);

/* The directory of the running program (/proc/self/exe's), into @buf. 0, or -errno. */
int self_exe_dir(char *buf, size_t size);
/* Program @name beside the running program, else, when that lies in a build tree's
 * src/@build_dir (the one directory name looked at), in its src/@build_sibling; the path into
 * @buf. 0, or -ENOENT (-errno) when there is none. Nothing else of an installed program's
 * surroundings is looked at. */
int find_sibling_program(const char *name, const char *build_dir, const char *build_sibling,
                         char *buf, size_t size);
