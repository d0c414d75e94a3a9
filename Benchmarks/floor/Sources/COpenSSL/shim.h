// The system OpenSSL 3 libcrypto: RSA key generation, RS256 signatures and their verification (RS256.swift),
// Firebase's scrypt and AES-256-CTR (FirebaseScrypt.swift).
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/rsa.h>
