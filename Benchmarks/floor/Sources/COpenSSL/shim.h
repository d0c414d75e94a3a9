// The system OpenSSL 3 libcrypto: RSA key generation, RS256 signatures and their verification (RS256.swift).
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/rsa.h>
