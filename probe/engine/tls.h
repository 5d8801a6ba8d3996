// OpenSSL handles in RAII wrappers and the client TLS context the HTTPS
// check uses: which CAs to trust and whether verification is (explicitly)
// off. Per-connection TLS steps live in probe_connection.cc; which session a
// node's next connection resumes, in tls_sessions.h.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>

namespace ax::probe {

struct SslCtxFree {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
struct SslFree {
  void operator()(SSL* ssl) const { SSL_free(ssl); }
};
struct SslSessionFree {
  void operator()(SSL_SESSION* session) const { SSL_SESSION_free(session); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxFree>;
using SslPtr = std::unique_ptr<SSL, SslFree>;
using SslSessionPtr = std::unique_ptr<SSL_SESSION, SslSessionFree>;

struct TlsOptions {
  // PEM CA bundle to verify node certificates against; empty: the system's
  // default trust store.
  std::string ca_file;
  // Accept any certificate. Must be asked for by name: a typo in ca_file
  // fails Start instead of silently trusting everything.
  bool insecure_skip_verify = false;
};

// A client context: TLS 1.2+, peer verification unless skipped, OpenSSL's
// own session cache off: sessions are kept per node by the engine
// (TlsSessionCache) and offered with SSL_set_session, which works without it.
// nullptr with `error` (if given) set when the CA file cannot be loaded.
SslCtxPtr MakeClientTlsContext(const TlsOptions& options, std::string* error);

}  // namespace ax::probe
