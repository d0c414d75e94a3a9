// The system's OpenSSL 3 libcrypto (Debian: libssl-dev): RS256 signatures and their verification (Tokens/RS256.swift)
// and the random generator (Support/RandomSource.swift).
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
