#ifndef PRODUCT_DETAILS_CZLIB_SHIM_H
#define PRODUCT_DETAILS_CZLIB_SHIM_H

/// next_in becomes a const pointer, so Swift can hand zlib read-only bytes without a cast.
#define ZLIB_CONST
#include <zlib.h>

/// inflateInit2 is a macro (it passes the header's version and the size of z_stream, which the
/// library checks), and Swift cannot call a function-like macro.
static inline int pd_inflate_init(z_streamp stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

#endif
