// The system's OpenSSL 3 libcrypto (Debian: libssl-dev), for RS256 signing only: see RS256Signer.swift.
#include <openssl/evp.h>
#include <openssl/err.h>
