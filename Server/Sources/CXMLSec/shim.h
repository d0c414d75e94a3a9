// xmlsec1 with its OpenSSL engine, and libxml2 (Debian: libxmlsec1-dev, which brings libxml2-dev): SAML response
// signatures and encrypted assertions, see FlintServer/SAML/XML.
//
// SwiftPM takes only -I from `pkg-config --cflags xmlsec1-openssl` and drops its -D flags ("prohibited flags"), so
// they are repeated here, as Debian's xmlsec1 1.2.37 prints them. XMLSEC_NO_SIZE_T matters most: it makes
// xmlSecSize an unsigned int, hence the layout of xmlsec's structures. XMLSecurityLibrary checks at start-up that
// the library loaded agrees (its version, and the layout of an xmlSecBuffer) and refuses to run otherwise.
#ifndef XMLSEC_CRYPTO_OPENSSL
#define XMLSEC_CRYPTO_OPENSSL 1
#define XMLSEC_NO_SIZE_T 1
#define XMLSEC_OPENSSL3_ENGINES 1
#define XMLSEC_NO_GOST 1
#define XMLSEC_NO_GOST2012 1
#define XMLSEC_NO_CRYPTO_DYNAMIC_LOADING 1
#define __XMLSEC_FUNCTION__ __func__
#endif
// Debian's libxml2 is built with ICU, whose headers libxml/encoding.h would import; their UErrorCode clashes with
// Foundation's own ICU module. Only xmlCharEncodingHandler's layout depends on it, a structure never used here.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/valid.h>
#include <xmlsec/xmlsec.h>
#include <xmlsec/buffer.h>
#include <xmlsec/errors.h>
#include <xmlsec/keys.h>
#include <xmlsec/keysdata.h>
#include <xmlsec/list.h>
#include <xmlsec/transforms.h>
#include <xmlsec/xmldsig.h>
#include <xmlsec/xmlenc.h>
#include <xmlsec/openssl/app.h>
#include <xmlsec/openssl/crypto.h>
