// GlibcCompat: nothing to import. This target only holds the wrappers that
// scripts/package-bootstrap.sh routes libm calls to (`-Xlinker --wrap=NAME`) in the packaged
// `bootstrap`, so that it runs on provided.al2023's glibc 2.34; see GlibcCompat.c.
#ifndef INKRA_GLIBC_COMPAT_H
#define INKRA_GLIBC_COMPAT_H

#include <math.h>  // and, on glibc, <features.h>, which defines __GLIBC__

#if defined(__linux__) && defined(__GLIBC__) && (defined(__x86_64__) || defined(__aarch64__))
double __wrap_hypot(double x, double y);
float __wrap_hypotf(float x, float y);
#endif

#endif
