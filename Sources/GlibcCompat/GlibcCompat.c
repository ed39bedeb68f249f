// Keeps the packaged `bootstrap` loadable on Lambda's provided.al2023, whose glibc is 2.34.
//
// glibc 2.35 gave hypot and hypotf a new symbol version, GLIBC_2.35, when it dropped their old SVID
// error-handling wrapper (the old versions keep the wrapper around the same computation). A program
// linked against glibc 2.35 or later (Debian 12 has 2.36) binds hypotf@GLIBC_2.35, and the loader
// on a 2.34 system refuses it at every cold start: "version `GLIBC_2.35' not found". Swift's Glibc
// overlay calls hypotf, so our binary did. These are the only two functions that glibc 2.35 and
// 2.36 moved to a new version on x86_64 and aarch64; everything else they added is new, has no
// older version to fall back on, and is reported by scripts/check-lambda-elf.sh if it is linked.
//
// scripts/package-bootstrap.sh links the release `bootstrap` with `--wrap=hypot --wrap=hypotf`,
// which sends every call to hypot to __wrap_hypot (and so on), and each wrapper calls the
// function at its oldest version, which every glibc of the architecture has (GLIBC_2.2.5 on
// x86_64, GLIBC_2.17 on aarch64) and which is the default version on glibc 2.34: the function a
// binary built on provided.al2023 itself calls. In one libm both versions return the same value
// for every input, infinities and NaNs included (hypot(±inf, nan) is +inf, hypot(nan, 1) is nan),
// and both set errno to ERANGE on overflow; scripts/ci-package.sh compares them.
//
// The old version is looked up once with dlvsym rather than bound with `.symver`: the toolchain's
// linker, gold, applies --wrap to versioned references too, so a `hypotf@GLIBC_2.2.5` reference
// here became __wrap_hypotf itself and the wrapper called itself forever (measured); lld binds it
// right, but linking the package with lld made the zip 140 KB larger (gold folds more code).
//
// Without --wrap (debug builds, the tests) nothing calls these functions. Elsewhere (macOS, musl)
// this file is empty.
#define _GNU_SOURCE 1  // dlvsym

#include "GlibcCompat.h"  // <math.h> first: it is what defines __GLIBC__

#if defined(__linux__) && defined(__GLIBC__)

#if defined(__x86_64__)
#define INKRA_GLIBC_BASE_VERSION "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define INKRA_GLIBC_BASE_VERSION "GLIBC_2.17"
#endif

#ifdef INKRA_GLIBC_BASE_VERSION
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

// libm's function NAME at the architecture's oldest version. Every glibc for x86_64 and aarch64
// has it, so the lookup cannot fail; if it ever did, stopping with its name beats a wrong answer.
// dlopen finds the libm.so.6 the program already loaded (and loads it if the link dropped it).
static void *inkra_glibc_base(const char *name) {
    void *libm = dlopen("libm.so.6", RTLD_LAZY);
    void *function = libm == NULL ? NULL : dlvsym(libm, name, INKRA_GLIBC_BASE_VERSION);
    if (function == NULL) {
        fprintf(stderr, "GlibcCompat: %s@%s not found\n", name, INKRA_GLIBC_BASE_VERSION);
        abort();
    }
    return function;
}

// Each pointer is found on the first call; two threads that race store the same address.
static _Atomic(double (*)(double, double)) inkra_glibc_hypot;
static _Atomic(float (*)(float, float)) inkra_glibc_hypotf;

double __wrap_hypot(double x, double y) {
    double (*hypot_base)(double, double) = atomic_load_explicit(&inkra_glibc_hypot, memory_order_relaxed);
    if (hypot_base == NULL) {
        hypot_base = (double (*)(double, double))inkra_glibc_base("hypot");
        atomic_store_explicit(&inkra_glibc_hypot, hypot_base, memory_order_relaxed);
    }
    return hypot_base(x, y);
}

float __wrap_hypotf(float x, float y) {
    float (*hypotf_base)(float, float) = atomic_load_explicit(&inkra_glibc_hypotf, memory_order_relaxed);
    if (hypotf_base == NULL) {
        hypotf_base = (float (*)(float, float))inkra_glibc_base("hypotf");
        atomic_store_explicit(&inkra_glibc_hypotf, hypotf_base, memory_order_relaxed);
    }
    return hypotf_base(x, y);
}
#endif

#endif
