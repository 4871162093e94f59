// OpenSSL libcrypto, as Debian's libssl-dev installs it: EC keys, ECDSA, SHA-256, PEM.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/sha.h>
