/*
 * ctgls's clock shift for perturbed verification runs (docs/emission.md, "Perturbed
 * re-execution"). Loaded into a JUnit JVM with LD_PRELOAD, it interposes the C library's
 * wall-clock calls and adds CTGLS_CLOCK_OFFSET_SECONDS (a signed integer) to what they
 * return, so System.currentTimeMillis(), Instant.now() and LocalDate.now() see another day
 * and hour. HotSpot on Linux reads the wall clock through clock_gettime(CLOCK_REALTIME),
 * which it calls through the C library's symbol (the vDSO sits behind it), so interposing
 * the symbol is enough; the monotonic clocks (System.nanoTime, timeouts) are left alone.
 * Every call is forwarded to the next definition (dlsym(RTLD_NEXT, ...)).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long long offset_seconds;

__attribute__((constructor)) static void ctgls_clockshift_init(void) {
    const char *text = getenv("CTGLS_CLOCK_OFFSET_SECONDS");
    offset_seconds = text ? strtoll(text, NULL, 10) : 0;
}

static int shifts(clockid_t clock) {
    return clock == CLOCK_REALTIME
#ifdef CLOCK_REALTIME_COARSE
           || clock == CLOCK_REALTIME_COARSE
#endif
#ifdef CLOCK_TAI
           || clock == CLOCK_TAI
#endif
        ;
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
    static int (*next)(clockid_t, struct timespec *);
    if (!next) {
        next = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    }
    int result = next(clock, ts);
    if (result == 0 && shifts(clock)) {
        ts->tv_sec += offset_seconds;
    }
    return result;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    static int (*next)(struct timeval *restrict, void *restrict);
    if (!next) {
        next = (int (*)(struct timeval *restrict, void *restrict))dlsym(RTLD_NEXT, "gettimeofday");
    }
    int result = next(tv, tz);
    if (result == 0) {
        tv->tv_sec += offset_seconds;
    }
    return result;
}

time_t time(time_t *out) {
    static time_t (*next)(time_t *);
    if (!next) {
        next = (time_t (*)(time_t *))dlsym(RTLD_NEXT, "time");
    }
    time_t now = next(NULL);
    if (now != (time_t)-1) {
        now += offset_seconds;
    }
    if (out) {
        *out = now;
    }
    return now;
}

int timespec_get(struct timespec *ts, int base) {
    static int (*next)(struct timespec *, int);
    if (!next) {
        next = (int (*)(struct timespec *, int))dlsym(RTLD_NEXT, "timespec_get");
    }
    int result = next(ts, base);
    if (result == base && base == TIME_UTC) {
        ts->tv_sec += offset_seconds;
    }
    return result;
}
