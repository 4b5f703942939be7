#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
#include <curl/curl.h>
#include <stddef.h>

/* libcurl is loaded when the first request is made (dlopen of its soname), not when ratecard
   starts: it brings some twenty libraries (GnuTLS, Kerberos, LDAP, nghttp2, ...) that only the
   object-storage and fetch paths use, and loading them cost every command about 4 ms. Only
   this header calls libcurl, through the table below (filled in by CShims' ccurl_load). */
struct ccurl_api {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *failure;
};

/* Defined in CShims (shims.c): this header is imported by Swift, which does not emit a
   header's static data. */
extern struct ccurl_api ccurl_loaded;

/* Loads libcurl once (thread-safe); NULL when it is ready, else why it is not. */
const char *ccurl_load(void);

/* Each call below is made only after ccurl_load() returned NULL. */
static inline CURL *ccurl_easy_init(void) { return ccurl_loaded.easy_init(); }
static inline void ccurl_easy_cleanup(CURL *handle) { ccurl_loaded.easy_cleanup(handle); }
static inline void ccurl_easy_reset(CURL *handle) { ccurl_loaded.easy_reset(handle); }
static inline CURLcode ccurl_easy_perform(CURL *handle) { return ccurl_loaded.easy_perform(handle); }
static inline const char *ccurl_easy_strerror(CURLcode code) { return ccurl_loaded.easy_strerror(code); }
static inline struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *line) { return ccurl_loaded.slist_append(list, line); }
static inline void ccurl_slist_free_all(struct curl_slist *list) { ccurl_loaded.slist_free_all(list); }

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
   wrapper per kind of argument. */
static inline CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return ccurl_loaded.easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return ccurl_loaded.easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return ccurl_loaded.easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return ccurl_loaded.easy_setopt(handle, option, value);
}
typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode ccurl_setopt_callback(CURL *handle, CURLoption option, ccurl_data_callback value) {
    return ccurl_loaded.easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_response_code(CURL *handle, long *code) {
    return ccurl_loaded.easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}

#endif
