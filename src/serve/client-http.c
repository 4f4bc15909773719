/* cordon-session's HTTP over cordon-serve's unix socket (client-http.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/client-http.h"
#include "serve/client-wire.h"
#include "shared/macro.h"

/* Seconds a connection may take to be made: the daemon is local, a long wait means it hangs. */
#define CLIENT_CONNECT_TIMEOUT_MS 10000

int client_http_init(void)
{
        /* Nothing of TLS is ever used: the socket is a local one. */
        return curl_global_init(CURL_GLOBAL_NOTHING) == CURLE_OK ? 0 : -EIO;
}

static size_t on_write(char *data, size_t size, size_t nmemb, void *userdata)
{
        struct client_request *r = userdata;
        size_t n = size * nmemb;
        long status = 0;
        curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
        if (r->on_data && status >= 200 && status < 300) {
                int e = r->on_data(data, n, r->userdata);
                if (e < 0) {
                        r->on_data_error = e;
                        return 0;
                }
                return n;
        }
        struct client_answer *a = &r->answer;
        if (n > CLIENT_ANSWER_MAX - a->len) {
                r->too_big = true;
                return 0;
        }
        char *b = realloc(a->body, a->len + n + 1);
        if (!b)
                return 0;
        memcpy(b + a->len, data, n);
        a->len += n;
        b[a->len] = 0;
        a->body = b;
        return n;
}

int client_request_new(const char *socket, const char *method, const char *path, char *body,
                       struct client_request **ret)
{
        _cleanup_free_ char *owned = body;
        struct client_request *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        r->socket = socket;
        r->body = TAKE_PTR(owned);
        r->easy = curl_easy_init();
        _cleanup_free_ char *url = NULL;
        if (!r->easy || asprintf(&url, "http://localhost%s", path) < 0) {
                client_request_free(r);
                return -ENOMEM;
        }
        /* No "Expect: 100-continue" wait before a large body; JSON in and out. */
        r->headers = curl_slist_append(r->headers, "Expect:");
        if (r->headers && r->body)
                r->headers = curl_slist_append(r->headers, "Content-Type: application/json");
        CURL *e = r->easy;
        bool ok = r->headers && curl_easy_setopt(e, CURLOPT_URL, url) == CURLE_OK &&
                  curl_easy_setopt(e, CURLOPT_UNIX_SOCKET_PATH, socket) == CURLE_OK &&
                  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http") == CURLE_OK &&
                  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) == CURLE_OK &&
                  /* An id ".." is a segment like any other: not a step up. */
                  curl_easy_setopt(e, CURLOPT_PATH_AS_IS, 1L) == CURLE_OK &&
                  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)CLIENT_CONNECT_TIMEOUT_MS) ==
                      CURLE_OK &&
                  curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers) == CURLE_OK &&
                  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write) == CURLE_OK &&
                  curl_easy_setopt(e, CURLOPT_WRITEDATA, r) == CURLE_OK &&
                  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->curl_error) == CURLE_OK &&
                  curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method) == CURLE_OK;
        if (ok && r->body)
                ok = curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body) == CURLE_OK &&
                     curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                                      (curl_off_t)strlen(r->body)) == CURLE_OK;
        else if (ok && !streq(method, "GET") && !streq(method, "DELETE"))
                /* A POST without a body still says so: Content-Length: 0. */
                ok = curl_easy_setopt(e, CURLOPT_POSTFIELDS, "") == CURLE_OK &&
                     curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0) == CURLE_OK;
        if (!ok) {
                client_request_free(r);
                return -ENOMEM;
        }
        *ret = r;
        return 0;
}

struct client_request *client_request_free(struct client_request *r)
{
        if (!r)
                return NULL;
        if (r->easy)
                curl_easy_cleanup(r->easy);
        curl_slist_free_all(r->headers);
        free(r->body);
        client_answer_clear(&r->answer);
        free(r);
        return NULL;
}

void client_answer_clear(struct client_answer *a)
{
        free(a->body);
        *a = (struct client_answer){};
}

int client_request_result(struct client_request *r, CURLcode code, char *err, size_t errlen)
{
        long status = 0;
        curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
        r->answer.status = (unsigned)status;
        if (code == CURLE_OK)
                return 0;
        if (r->on_data_error) {
                snprintf(err, errlen, "the daemon's answer is malformed: %s",
                         strerror(-r->on_data_error));
                return r->on_data_error;
        }
        if (r->too_big || code == CURLE_FILESIZE_EXCEEDED) {
                snprintf(err, errlen, "the daemon's answer is larger than %u bytes",
                         CLIENT_ANSWER_MAX);
                return -EMSGSIZE;
        }
        if (code == CURLE_COULDNT_CONNECT || code == CURLE_OPERATION_TIMEDOUT) {
                long os = 0;
                curl_easy_getinfo(r->easy, CURLINFO_OS_ERRNO, &os);
                int e = os > 0 ? (int)os : ETIMEDOUT;
                if (status == 0) {
                        snprintf(err, errlen,
                                 "cannot connect to cordon-serve at '%s': %s (is 'cordon "
                                 "serve' running?)",
                                 r->socket, strerror(e));
                        return -e;
                }
        }
        /* An answer begun and cut (the daemon died, or closed a stream): the caller may retry. */
        if (code == CURLE_PARTIAL_FILE || code == CURLE_RECV_ERROR || code == CURLE_GOT_NOTHING ||
            code == CURLE_SEND_ERROR) {
                snprintf(err, errlen, "the connection to cordon-serve broke: %s",
                         *r->curl_error ? r->curl_error : curl_easy_strerror(code));
                return -EPIPE;
        }
        snprintf(err, errlen, "the request to cordon-serve failed: %s",
                 *r->curl_error ? r->curl_error : curl_easy_strerror(code));
        return -EIO;
}

int client_http_request(const char *socket, const char *method, const char *path, char *body,
                        struct client_answer *ret, char *err, size_t errlen)
{
        struct client_request *r = NULL;
        int e = client_request_new(socket, method, path, body, &r);
        if (e < 0) {
                snprintf(err, errlen, "out of memory");
                return e;
        }
        e = client_request_result(r, curl_easy_perform(r->easy), err, errlen);
        if (e >= 0) {
                *ret = r->answer;
                r->answer = (struct client_answer){};
        }
        client_request_free(r);
        return e;
}
