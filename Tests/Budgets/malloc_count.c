// Counts a process's heap allocations for Tests/Budgets/budgets.py, loaded with LD_PRELOAD.
//
// Every call of malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign adds one to
// the first counter, every free of a non-null pointer one to the second. The counters live in a
// file ($MALLOC_COUNT_FILE, made by the driver) mapped shared, so that the driver reads them
// between its requests without asking the process anything: no signal, no thread, no socket.
//
// The next definitions are found with dlsym(RTLD_NEXT). dlsym may itself ask for memory before
// they are known: such requests are served from a small static arena, never freed.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void *(*next_malloc)(size_t);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static void (*next_free)(void *);
static int (*next_posix_memalign)(void **, size_t, size_t);
static void *(*next_aligned_alloc)(size_t, size_t);
static void *(*next_memalign)(size_t, size_t);

// [0] allocations, [1] frees; null until the constructor has mapped the file.
static uint64_t *counters;

static _Alignas(16) char arena[8192];
static size_t arena_used;
static int resolving;

static int in_arena(const void *pointer) {
    return (const char *)pointer >= arena && (const char *)pointer < arena + sizeof arena;
}

static void *arena_alloc(size_t size) {
    size_t start = (arena_used + 15) & ~(size_t)15;
    if (start + size > sizeof arena) return NULL;
    arena_used = start + size;
    return arena + start;
}

static void resolve(void) {
    if (next_malloc || resolving) return;
    resolving = 1;
    next_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    next_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    next_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    next_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
    next_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
    next_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
    next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    resolving = 0;
}

static void counted(int which) {
    if (counters) __atomic_fetch_add(&counters[which], 1, __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void map_counters(void) {
    resolve();
    const char *path = getenv("MALLOC_COUNT_FILE");
    if (!path) return;
    int fd = open(path, O_RDWR);
    if (fd < 0) return;
    void *mapping = mmap(NULL, 2 * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (mapping != MAP_FAILED) counters = mapping;
}

void *malloc(size_t size) {
    resolve();
    if (!next_malloc) return arena_alloc(size);
    counted(0);
    return next_malloc(size);
}

void *calloc(size_t count, size_t size) {
    resolve();
    if (!next_calloc) {
        void *pointer = count && size > SIZE_MAX / count ? NULL : arena_alloc(count * size);
        if (pointer) memset(pointer, 0, count * size);
        return pointer;
    }
    counted(0);
    return next_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    resolve();
    if (in_arena(pointer)) {
        size_t room = (size_t)(arena + sizeof arena - (char *)pointer);
        void *moved = malloc(size);
        if (moved) memcpy(moved, pointer, size < room ? size : room);
        return moved;
    }
    counted(0);
    return next_realloc(pointer, size);
}

void free(void *pointer) {
    if (!pointer || in_arena(pointer)) return;
    resolve();
    counted(1);
    next_free(pointer);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    resolve();
    if (!next_posix_memalign) return ENOMEM;
    counted(0);
    return next_posix_memalign(result, alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    resolve();
    if (!next_aligned_alloc) return NULL;
    counted(0);
    return next_aligned_alloc(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    resolve();
    if (!next_memalign) return NULL;
    counted(0);
    return next_memalign(alignment, size);
}
