#ifndef PRODUCT_DETAILS_CDEFLATE_SHIM_H
#define PRODUCT_DETAILS_CDEFLATE_SHIM_H

/// Debian's libdeflate (libdeflate-dev): whole-buffer DEFLATE, for the gzip members we make.
#include <libdeflate.h>

#endif
