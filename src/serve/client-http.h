/* cordon-session's HTTP: libcurl over cordon-serve's unix socket (CURLOPT_UNIX_SOCKET_PATH).
 * One transfer is a struct client_request: run on its own (client_request_perform()) or added to
 * a curl multi handle by its caller (attach's loop). Answers are held whole up to
 * CLIENT_ANSWER_MAX bytes; a streamed answer with a 2xx status goes to a callback instead. */
#pragma once

#include <curl/curl.h>
#include <stdbool.h>
#include <stddef.h>

struct client_answer {
        unsigned status;
        char *body; /* NUL-terminated; NULL when there was none */
        size_t len;
};

struct client_request {
        CURL *easy;
        struct curl_slist *headers;
        char *body; /* what is sent */
        const char *socket;
        struct client_answer answer;
        bool too_big;
        /* When set, the bytes of a 2xx answer go here instead of @answer; < 0 stops the
         * transfer (curl_easy_perform then fails with CURLE_WRITE_ERROR). */
        int (*on_data)(const char *data, size_t n, void *userdata);
        void *userdata;
        int on_data_error;
        char curl_error[CURL_ERROR_SIZE];
};

/* Once per process, before any request: 0 or -EIO. */
int client_http_init(void);

/* A request of @method on @path ("/v1/...", already escaped) over @socket (kept by reference),
 * with @body as JSON when not NULL (stolen, also on failure). 0 or -ENOMEM. */
int client_request_new(const char *socket, const char *method, const char *path, char *body,
                       struct client_request **ret);
struct client_request *client_request_free(struct client_request *r);

/* The outcome of a finished transfer whose curl result is @code: 0 (an answer was received, any
 * status: see r->answer), or -errno with one line in @err: -ECONNREFUSED/-ENOENT/... when the
 * daemon cannot be reached (naming the socket), -EMSGSIZE for an answer over the limit, -EPIPE
 * when the connection broke mid-answer, -EIO otherwise, or @r->on_data's error. */
int client_request_result(struct client_request *r, CURLcode code, char *err, size_t errlen);

/* client_request_new(), curl_easy_perform() and client_request_result() in one. On success the
 * answer is moved to @ret (free it with client_answer_clear()). */
int client_http_request(const char *socket, const char *method, const char *path, char *body,
                        struct client_answer *ret, char *err, size_t errlen);
void client_answer_clear(struct client_answer *a);
