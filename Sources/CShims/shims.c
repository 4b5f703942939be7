#define _GNU_SOURCE
#include <link.h>
#include <elf.h>
#include <string.h>
#include <stdio.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <sched.h>
#include <signal.h>
#include <pthread.h>
#include <sys/signalfd.h>
#include "CShims.h"

int cshims_exchange_paths(const char *a, const char *b) {
    return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
}

int cshims_rename_noreplace(int fromdir, const char *from, int todir, const char *to) {
    return renameat2(fromdir, from, todir, to, RENAME_NOREPLACE);
}

int cshims_flock_exclusive(int fd, int nonblocking) {
    return flock(fd, LOCK_EX | (nonblocking ? LOCK_NB : 0));
}

int cshims_flock_unlock(int fd) {
    return flock(fd, LOCK_UN);
}

int cshims_syncfs(int fd) {
    return syncfs(fd);
}

int cshims_allowed_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}

int cshims_stop_signals_fd(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    return signalfd(-1, &set, SFD_CLOEXEC);
}

struct build_id_search {
    unsigned char *out;
    int capacity;
    int length;
};

static int find_build_id(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct build_id_search *search = data;
    /* The first object is the program itself. */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type != PT_NOTE) continue;
        const char *note = (const char *)(info->dlpi_addr + header->p_vaddr);
        const char *end = note + header->p_memsz;
        while (note + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nhdr = (const ElfW(Nhdr) *)note;
            const char *name = note + sizeof(ElfW(Nhdr));
            const char *desc = name + ((nhdr->n_namesz + 3) & ~3u);
            if (nhdr->n_type == NT_GNU_BUILD_ID && nhdr->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                int length = (int)nhdr->n_descsz < search->capacity ? (int)nhdr->n_descsz : search->capacity;
                memcpy(search->out, desc, (size_t)length);
                search->length = length;
                return 1;
            }
            note = desc + ((nhdr->n_descsz + 3) & ~3u);
        }
    }
    return 1;
}

int cshims_build_id(unsigned char *out, int capacity) {
    struct build_id_search search = { out, capacity, 0 };
    dl_iterate_phdr(find_build_id, &search);
    return search.length;
}

/* libcurl, loaded on first use (see CCurl/shim.h). */
#include <dlfcn.h>
#include <pthread.h>
#include "../CCurl/shim.h"

struct ccurl_api ccurl_loaded;
static pthread_once_t ccurl_once = PTHREAD_ONCE_INIT;

static void ccurl_load_once(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        ccurl_loaded.failure = why != NULL ? why : "libcurl.so.4 could not be loaded";
        return;
    }
    struct ccurl_api api = {0};
    api.global_init = (CURLcode(*)(long))dlsym(library, "curl_global_init");
    api.easy_init = (CURL * (*)(void)) dlsym(library, "curl_easy_init");
    api.easy_cleanup = (void (*)(CURL *))dlsym(library, "curl_easy_cleanup");
    api.easy_reset = (void (*)(CURL *))dlsym(library, "curl_easy_reset");
    api.easy_perform = (CURLcode(*)(CURL *))dlsym(library, "curl_easy_perform");
    api.easy_strerror = (const char *(*)(CURLcode))dlsym(library, "curl_easy_strerror");
    api.slist_append = (struct curl_slist * (*)(struct curl_slist *, const char *)) dlsym(library, "curl_slist_append");
    api.slist_free_all = (void (*)(struct curl_slist *))dlsym(library, "curl_slist_free_all");
    api.easy_setopt = (CURLcode(*)(CURL *, CURLoption, ...))dlsym(library, "curl_easy_setopt");
    api.easy_getinfo = (CURLcode(*)(CURL *, CURLINFO, ...))dlsym(library, "curl_easy_getinfo");
    if (!api.global_init || !api.easy_init || !api.easy_cleanup || !api.easy_reset || !api.easy_perform || !api.easy_strerror || !api.slist_append
        || !api.slist_free_all || !api.easy_setopt || !api.easy_getinfo) {
        ccurl_loaded.failure = "libcurl.so.4 lacks a function ratecard calls";
        return;
    }
    if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        ccurl_loaded.failure = "curl_global_init failed";
        return;
    }
    ccurl_loaded = api;
}

const char *ccurl_load(void) {
    pthread_once(&ccurl_once, ccurl_load_once);
    return ccurl_loaded.easy_init != NULL ? NULL : ccurl_loaded.failure;
}
