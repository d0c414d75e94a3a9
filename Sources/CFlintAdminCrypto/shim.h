// The system's OpenSSL 3 libcrypto (Debian: libssl-dev), for FlintAdminCore on Linux: RS256 signatures and their
// verification, keys from PEM, X.509 certificates and JWKs (FlintAdminCore/Crypto/RSAKeys+OpenSSL.swift). On Apple
// platforms FlintAdminCore uses Security instead, and this module is not built.
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
