#ifndef PRODUCT_DETAILS_CISAL_SHIM_H
#define PRODUCT_DETAILS_CISAL_SHIM_H

/// Debian's Intel ISA-L (libisal-dev): igzip, for the gzip members of stored pages.
#include <isa-l/igzip_lib.h>

#endif
