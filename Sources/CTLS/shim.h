// TLS for the webhook's HTTP client: the system's OpenSSL (libssl). The static inline
// functions stand in for OpenSSL's function-like macros, which Swift cannot import.
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

static inline int ctls_set_minimum_tls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}

static inline int ctls_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// An empty memory BIO reads as "retry" by default; after this it reads as end of file.
static inline void ctls_set_end_of_input(BIO *bio) {
    (void)BIO_set_mem_eof_return(bio, 0);
}
