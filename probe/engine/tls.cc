// The client TLS context (tls.h).
#include "engine/tls.h"

#include <openssl/err.h>

#include "ax/runtime/openssl_errors.h"

namespace ax::probe {

SslCtxPtr MakeClientTlsContext(const TlsOptions& options, std::string* error) {
  ERR_clear_error();
  SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) {
    if (error) *error = runtime::TakeOpenSslErrors("SSL_CTX_new failed");
    return nullptr;
  }
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  // A client never looks sessions up in OpenSSL's cache by itself; the
  // engine keeps each node's last one (TlsSessionCache) and offers it.
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  // Without read-ahead OpenSSL reads each record's header and body with two
  // read() calls (~14 per resumed HTTPS probe); with it, whatever has
  // arrived in one (~4). Bytes read ahead wait in OpenSSL's buffer, which
  // SSL_connect and DoRead drain before they report WANT_READ.
  SSL_CTX_set_read_ahead(ctx.get(), 1);
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
  // With Connection: close many servers close without close_notify; the body
  // framing (Content-Length / chunked) already tells truncation apart.
  SSL_CTX_set_options(ctx.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
#endif
  if (options.insecure_skip_verify) {
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
    return ctx;
  }
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  const int loaded = options.ca_file.empty()
                         ? SSL_CTX_set_default_verify_paths(ctx.get())
                         : SSL_CTX_load_verify_locations(
                               ctx.get(), options.ca_file.c_str(), nullptr);
  if (loaded != 1) {
    if (error)
      *error = "cannot load CA bundle '" + options.ca_file +
               "': " + runtime::TakeOpenSslErrors("unknown error");
    return nullptr;
  }
  return ctx;
}

}  // namespace ax::probe
