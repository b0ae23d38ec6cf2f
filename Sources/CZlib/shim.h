#ifndef PRODUCT_DETAILS_CZLIB_SHIM_H
#define PRODUCT_DETAILS_CZLIB_SHIM_H

/// next_in becomes a const pointer, so Swift can hand zlib read-only bytes without a cast.
#define ZLIB_CONST
#include <zlib.h>

/// deflateInit2 and inflateInit2 are macros (they pass the header's version and the size of
/// z_stream, which the library checks), and Swift cannot call a function-like macro.
static inline int pd_deflate_init(z_streamp stream, int level, int window_bits, int memory_level) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits, memory_level, Z_DEFAULT_STRATEGY);
}

static inline int pd_inflate_init(z_streamp stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

#endif
