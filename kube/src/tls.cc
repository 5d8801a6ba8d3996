// Parsing PEM material and configuring client SSL contexts (tls.h).
#include "tls.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

namespace ax::kube {
namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;

BioPtr MemoryBio(const std::string& pem) {
  return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

Error TlsError(const std::string& message) {
  ERR_clear_error();
  return Error{0, std::string(kReasonInvalidConfig), message};
}

bool IsIpLiteral(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace

std::vector<X509Ptr> ParseCertificates(const std::string& pem) {
  std::vector<X509Ptr> certs;
  BioPtr bio = MemoryBio(pem);
  while (bio) {
    X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!cert) break;
    certs.push_back(std::move(cert));
  }
  ERR_clear_error();  // the read past the last certificate
  return certs;
}

Result<TlsIdentity> TlsIdentity::FromConfig(const Config& config) {
  TlsIdentity identity;
  identity.insecure_ = config.insecure_skip_tls_verify;
  if (!config.ca_pem.empty()) {
    identity.cas_ = ParseCertificates(config.ca_pem);
    if (identity.cas_.empty()) {
      return TlsError(config.source +
                      ": certificate-authority holds no PEM "
                      "certificate");
    }
  }
  if (config.client_cert_pem.empty() != config.client_key_pem.empty()) {
    return TlsError(config.source +
                    ": a client certificate needs both certificate and key");
  }
  if (config.client_cert_pem.empty()) return identity;
  identity.client_chain_ = ParseCertificates(config.client_cert_pem);
  if (identity.client_chain_.empty()) {
    return TlsError(config.source +
                    ": client-certificate holds no PEM certificate");
  }
  BioPtr bio = MemoryBio(config.client_key_pem);
  identity.client_key_.reset(
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr)
          : nullptr);
  if (!identity.client_key_) {
    return TlsError(config.source + ": client-key holds no PEM private key");
  }
  if (X509_check_private_key(identity.client_chain_.front().get(),
                             identity.client_key_.get()) != 1) {
    return TlsError(config.source +
                    ": the client key does not match the client certificate");
  }
  return identity;
}

bool TlsIdentity::Apply(SSL_CTX* ctx, const std::string& host) const {
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  if (insecure_) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  } else {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    if (cas_.empty()) {
      if (SSL_CTX_set_default_verify_paths(ctx) != 1) return false;
    } else {
      X509_STORE* store = X509_STORE_new();
      if (store == nullptr) return false;
      SSL_CTX_set_cert_store(ctx, store);  // the context owns it now
      for (const X509Ptr& ca : cas_) {
        if (X509_STORE_add_cert(store, ca.get()) != 1) return false;
      }
    }
    X509_VERIFY_PARAM* param = SSL_CTX_get0_param(ctx);
    const int named =
        IsIpLiteral(host)
            ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str())
            : X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
    if (named != 1) return false;
  }
  if (client_key_) {
    if (SSL_CTX_use_certificate(ctx, client_chain_.front().get()) != 1 ||
        SSL_CTX_use_PrivateKey(ctx, client_key_.get()) != 1) {
      return false;
    }
    for (size_t i = 1; i < client_chain_.size(); ++i) {
      if (SSL_CTX_add1_chain_cert(ctx, client_chain_[i].get()) != 1) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace ax::kube
