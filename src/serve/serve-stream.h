/* cordon-serve's output stream (issue 26): GET /v1/sessions/{id}/processes/{pid}/output
 * ?after_seq=N as NDJSON, built on the holder's long-poll "process_output". */
#pragma once

#include "serve/serve-holders.h"
#include "serve/serve-http.h"

/* Bytes of NDJSON text the daemon keeps per process after handing them on (the replay), in
 * all, and the processes per session it keeps them for. */
#define SERVE_REPLAY_PROCESS_MAX (1u << 20)
#define SERVE_REPLAY_TOTAL_MAX   (64u << 20)
#define SERVE_REPLAY_PER_SESSION 16
/* How long one long-poll waits for output (below HOLDER_WAIT_MS_MAX). */
#define SERVE_STREAM_WAIT_MS 25000

/* Answers @r (its params: the session id and the process id) with the stream of session @s's
 * process from the query's after_seq on. */
void serve_stream_output(struct serve_request *r, struct serve_session *s);
