/* What a sandbox may leave in a git directory: the entries git changes as it commits (writable
 * inside), and, for a repository the sandbox made or changed, the configuration and state files
 * the host's git may read afterwards without running anything the sandbox chose. Pure functions:
 * no I/O. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Longest configuration file or todo list judged; longer ones are refused. */
#define CORDON_GIT_STATE_MAX (64u * 1024u)

/* An entry at the top of a git directory that git writes to commit, branch, fetch, merge and
 * rebase (objects, refs, index, HEAD, ...). */
bool cordon_git_entry_writable(const char *name);

/* Judges the text of a git configuration file (config, config.worktree) against a strict
 * subset of git's syntax (sections, "key = value" lines, comments; no escapes, no
 * continuation lines, no includes) and an allow list of keys that make git run nothing (the
 * repository's format, remotes and branches by URL, user name and e-mail, ...). 0 when every
 * line passes; -EPERM otherwise, with the line and the reason in @reason (NUL-terminated,
 * truncated to @size). */
int cordon_git_config_check(const char *text, size_t len, char *reason, size_t size);

/* Judges a rebase or sequencer todo list: -EPERM (reason as above) for a line git would run
 * as a command (`exec`, `x`) or for text that is not lines of text; 0 otherwise. */
int cordon_git_todo_check(const char *text, size_t len, char *reason, size_t size);
