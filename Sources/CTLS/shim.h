// TLS for the webhook's HTTP client: the system's OpenSSL (libssl), loaded when the
// first connection to an https endpoint is opened, not when `juice` starts (start-up
// rule "loaded when needed", the Performance article): linking libssl and libcrypto
// would cost every command their loading, and most commands never open a TLS
// connection.
//
// `ctls_openssl_load` opens the libssl whose major version the headers name and fills a
// table of the functions the client calls; each field has the type of the function the
// header declares (`__typeof__`), so a call through the table is checked as a direct
// call would be. The static inline functions stand in for OpenSSL's function-like
// macros, which Swift cannot import; they take the control function from the table.
#include <dynamic_library.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#define CTLS_FUNCTIONS(X) \
    X(TLS_client_method) X(SSL_CTX_new) X(SSL_CTX_free) X(SSL_CTX_ctrl) X(SSL_CTX_set_verify) \
    X(SSL_CTX_load_verify_locations) X(SSL_CTX_set_default_verify_paths) \
    X(SSL_new) X(SSL_free) X(SSL_ctrl) X(SSL_set_bio) X(SSL_get0_param) X(SSL_set_hostflags) X(SSL_set1_host) \
    X(SSL_set_connect_state) X(SSL_do_handshake) X(SSL_get_error) X(SSL_get_verify_result) \
    X(SSL_write) X(SSL_read) X(SSL_shutdown) \
    X(BIO_new) X(BIO_s_mem) X(BIO_read) X(BIO_write) X(BIO_ctrl) X(BIO_ctrl_pending) \
    X(X509_VERIFY_PARAM_set1_ip_asc) X(X509_verify_cert_error_string) \
    X(ERR_clear_error) X(ERR_get_error) X(ERR_reason_error_string)

/// The OpenSSL functions the webhook's client calls. Filled whole by `ctls_openssl_load`.
struct ctls_openssl {
#define CTLS_FIELD(name) __typeof__(&name) _Nonnull name;
    CTLS_FUNCTIONS(CTLS_FIELD)
#undef CTLS_FIELD
};

/// Opens libssl (and through it libcrypto) and fills `table`. Returns NULL, or a line
/// that says what could not be loaded; `table` is then only partly filled. The library
/// stays loaded: it is the process's, shared by every caller.
static inline const char *_Nullable ctls_openssl_load(struct ctls_openssl *_Nonnull table) {
    static const char *const names[] = {
#if defined(__APPLE__)
        "libssl." JUICE_LIBRARY_TEXT(OPENSSL_SHLIB_VERSION) ".dylib",
        "/opt/homebrew/opt/openssl@3/lib/libssl." JUICE_LIBRARY_TEXT(OPENSSL_SHLIB_VERSION) ".dylib",
        "/usr/local/opt/openssl@3/lib/libssl." JUICE_LIBRARY_TEXT(OPENSSL_SHLIB_VERSION) ".dylib",
#else
        "libssl.so." JUICE_LIBRARY_TEXT(OPENSSL_SHLIB_VERSION),
#endif
    };
    void *library = juice_library_open(names, JUICE_LIBRARY_COUNT(names));
    if (library == NULL) {
        const char *reason = dlerror();
        return reason != NULL ? reason : "cannot load " "libssl." JUICE_LIBRARY_TEXT(OPENSSL_SHLIB_VERSION);
    }
#define CTLS_LOAD(name) \
    if ((table->name = (__typeof__(table->name))dlsym(library, #name)) == NULL) return "libssl has no " #name;
    CTLS_FUNCTIONS(CTLS_LOAD)
#undef CTLS_LOAD
    return NULL;
}

static inline int ctls_set_minimum_tls12(__typeof__(&SSL_CTX_ctrl) _Nonnull control, SSL_CTX *_Nonnull context) {
    return (int)control(context, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL);
}

static inline int ctls_set_server_name(__typeof__(&SSL_ctrl) _Nonnull control, SSL *_Nonnull ssl, const char *_Nonnull name) {
    return (int)control(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, (void *)name);
}

/// An empty memory BIO reads as "retry" by default; after this it reads as end of file.
static inline void ctls_set_end_of_input(__typeof__(&BIO_ctrl) _Nonnull control, BIO *_Nonnull bio) {
    (void)control(bio, BIO_C_SET_BUF_MEM_EOF_RETURN, 0, NULL);
}
