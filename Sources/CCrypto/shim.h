#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H
// OpenSSL's libcrypto (Debian's libssl-dev, which libpq-dev already brings): digests only.
#include <openssl/evp.h>
#endif
