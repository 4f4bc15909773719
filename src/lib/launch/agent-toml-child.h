/* agent-toml.h's two functions, run in a forked child that is confined before it reads the text:
 * the TOML an agent's copy holds is the sandbox's, and a memory-safety bug of the parser
 * (toml++, where fuzzing has found undefined behaviour before) must not run code in the
 * supervisor. The child has no descriptor but a socket to its parent, rlimits (address space,
 * CPU time, no files, no core), no-new-privs, and a seccomp filter that kills it on any call but
 * read and write on that socket, memory management without PROT_EXEC, futex and exit. Supervisor
 * side. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The child's limits: wall-clock time, CPU seconds, address space, and what it may answer. */
#define CORDON_AGENT_TOML_CHILD_TIMEOUT_MSEC 10000
#define CORDON_AGENT_TOML_CHILD_CPU_SEC      10u
#define CORDON_AGENT_TOML_CHILD_AS_MAX       (1ull << 30)
#define CORDON_AGENT_TOML_CHILD_OUT_MAX      (64u << 20)

/* cordon_agent_toml_to_json() and cordon_agent_toml_edit() (agent-toml.h) in the child, same
 * arguments, same results, except: the child killed (a signal, the seccomp filter, a limit), out
 * of memory, or its answer malformed gives -EINVAL with @why saying so (the text is taken for
 * one that cannot be read, never for the supervisor's own lack of memory); -errno with @why
 * when no child could be started. -ENOMEM only for the parent's own allocations. Forks: the
 * child of a multi-threaded caller only reads, parses and writes (glibc's malloc is usable
 * after fork()). */
int cordon_agent_toml_to_json_confined(const char *text, size_t len, json_t **ret, char *why);
int cordon_agent_toml_edit_confined(const char *text, size_t len, json_t *want, char **ret,
                                    size_t *ret_len, char *why);

/* The profile's overlay (an object) edited into TOML text @text (the host's own file) where it
 * does not set a key already: cordon_agent_toml_to_json(), cordon_agent_json_fill_missing() and
 * cordon_agent_toml_edit() in one child. The dotted names of the overlay's leaves @text sets
 * itself (which keep its values) are added to *@ret_kept. Results as above. */
int cordon_agent_toml_overlay_confined(const char *text, size_t len, json_t *overlay, char **ret,
                                       size_t *ret_len, char ***ret_kept, char *why);

/* Tests only: when set, called in the child twice, with @filtered false once it holds nothing
 * but its socket and its limits, then true once the seccomp filter is in force. */
extern void (*cordon_agent_toml_child_test_hook)(bool filtered);
