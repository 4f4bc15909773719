/* FILTER_PASSWD: a minimal /etc/passwd and /etc/group (system entries below 1000, the overflow
 * ids, and the caller) so directory users cannot be enumerated from inside. Pure functions. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* Filters passwd-format @text: keeps lines whose uid is below 1000 or 65534, and drops any line
 * for @uid (it is appended from @self_line, a complete passwd line, so directory-only users
 * still resolve). Malformed lines are dropped. Returns 0 or -ENOMEM. */
int cordon_passwd_filter(const char *text, uid_t uid, const char *self_line, char **ret);
/* Same for group-format @text, keeping gids below 1000 and 65534 plus @gid (from @self_line
 * when given). */
int cordon_group_filter(const char *text, gid_t gid, const char *self_line, char **ret);
/* Whether passwd- or group-format @text has a well-formed line for @id (its third field). */
bool cordon_passwd_db_has_id(const char *text, unsigned long id);
/* The home directory (sixth field) of the first well-formed line for @uid in passwd-format
 * @text, in a new string. Returns 0, -ENOENT when no line has @uid, -EINVAL when that line has
 * fewer than seven fields, -ENOMEM. */
int cordon_passwd_db_home(const char *text, unsigned long uid, char **ret);
/* nsswitch.conf resolving users and groups from files only. */
const char *cordon_nsswitch_files_only(void);
