/* A slow disk for the bench: every fsync and fdatasync of the process sleeps first.
 *
 * LD_PRELOAD'ed into the daemon by `python -m bench.latency --slow-fsync-ms N`
 * (bench/slow_disk.py compiles it with cc at bench time). The delay comes from
 * FLOORD_BENCH_FSYNC_US (microseconds, default 5000): what a commit costs on a table
 * box's eMMC or SD card rather than on the build machine's SSD.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static void slow(void) {
    const char *text = getenv("FLOORD_BENCH_FSYNC_US");
    long us = text ? atol(text) : 5000;
    struct timespec wait = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&wait, NULL);
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    slow();
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    slow();
    return real(fd);
}
