// The TLS side of a Config, parsed once (tls.cc): trusted CA certificates, the
// client certificate chain and key, in RAII handles, applied to the SSL_CTX
// of every new connection. Verification is ours, not httplib's: only the
// cluster's CAs are trusted (httplib would add the system roots) and the
// server name is checked by OpenSSL during the handshake.
#pragma once

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <memory>
#include <string>
#include <vector>

#include "ax/kube/config.h"
#include "ax/kube/result.h"

namespace ax::kube {

struct X509Free {
  void operator()(X509* cert) const { X509_free(cert); }
};
struct EvpPkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;
using EvpPkeyPtr = std::unique_ptr<EVP_PKEY, EvpPkeyFree>;

class TlsIdentity {
 public:
  // Errors name the field ("certificate-authority: no PEM certificate", "the
  // client key does not match the client certificate").
  static Result<TlsIdentity> FromConfig(const Config& config);

  // Trust, verification of `host` (a name or an IP literal) and the client
  // certificate on a fresh client context. false on an OpenSSL failure.
  bool Apply(SSL_CTX* ctx, const std::string& host) const;

 private:
  std::vector<X509Ptr> cas_;
  std::vector<X509Ptr> client_chain_;  // leaf first
  EvpPkeyPtr client_key_;
  bool insecure_ = false;
};

// Every PEM certificate in `pem`, in order (empty when there is none).
std::vector<X509Ptr> ParseCertificates(const std::string& pem);

}  // namespace ax::kube
