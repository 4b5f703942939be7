#ifndef CGIT2_SHIM_H
#define CGIT2_SHIM_H
#define GIT_DEPRECATE_HARD
#include <git2.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/mempack.h>

/* git_libgit2_opts() is variadic, which Swift cannot call: wrap the options we use. */
static inline int cgit2_set_owner_validation(int enabled) {
    return git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, enabled);
}
static inline int cgit2_set_strict_hash_verification(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, enabled);
}
static inline int cgit2_set_search_path_system_empty(void) {
    int rc = git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_SYSTEM, "");
    return rc;
}
#endif
