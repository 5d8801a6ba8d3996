// Certificate generation for the HTTPS probe tests (test_pki.h).
#include "test_pki.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <memory>

namespace ax::probe::testing {

namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;

bool AddExt(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) return false;
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

// A certificate for `key` named `cn`, signed by issuer/issuer_key (itself
// when issuer is null).
X509Ptr MakeCert(EVP_PKEY* key, const char* cn, long serial, X509* issuer,
                 EVP_PKEY* issuer_key, bool is_ca, const std::string& san) {
  X509Ptr cert(X509_new());
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24L * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME_add_entry_by_txt(
      X509_get_subject_name(cert.get()), "CN", MBSTRING_ASC,
      reinterpret_cast<const unsigned char*>(cn), -1, -1, 0);
  X509* signer = issuer ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  bool ok = true;
  if (is_ca) {
    ok &= AddExt(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    ok &= AddExt(cert.get(), signer, NID_key_usage,
                 "critical,keyCertSign,cRLSign");
    ok &= AddExt(cert.get(), signer, NID_subject_key_identifier, "hash");
  } else {
    ok &= AddExt(cert.get(), signer, NID_basic_constraints, "CA:FALSE");
    ok &= AddExt(cert.get(), signer, NID_ext_key_usage, "serverAuth");
    ok &= AddExt(cert.get(), signer, NID_subject_alt_name, san.c_str());
  }
  if (!ok || X509_sign(cert.get(), issuer_key, EVP_sha256()) == 0) {
    return nullptr;
  }
  return cert;
}

bool WritePem(const std::string& path, X509* cert, EVP_PKEY* key) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  const bool ok = cert ? PEM_write_X509(f, cert) == 1
                       : PEM_write_PrivateKey(f, key, nullptr, nullptr, 0,
                                              nullptr, nullptr) == 1;
  std::fclose(f);
  return ok;
}

}  // namespace

TestPki::TestPki(const std::string& dns_name) {
  std::string tmpl =
      (std::filesystem::temp_directory_path() / "ax-probe-pki-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) return;
  dir_ = tmpl;
  ca_file_ = dir_ + "/ca.pem";
  cert_file_ = dir_ + "/server.pem";
  key_file_ = dir_ + "/server.key";

  PkeyPtr ca_key(EVP_EC_gen("P-256"));
  PkeyPtr key(EVP_EC_gen("P-256"));
  if (!ca_key || !key) return;
  X509Ptr ca = MakeCert(ca_key.get(), "Ax Test CA", 1, nullptr, ca_key.get(),
                        /*is_ca=*/true, "");
  if (!ca) return;
  X509Ptr cert =
      MakeCert(key.get(), dns_name.c_str(), 2, ca.get(), ca_key.get(),
               /*is_ca=*/false, "DNS:" + dns_name + ",IP:127.0.0.1");
  if (!cert) return;
  ok_ = WritePem(ca_file_, ca.get(), nullptr) &&
        WritePem(cert_file_, cert.get(), nullptr) &&
        WritePem(key_file_, nullptr, key.get());
}

TestPki::~TestPki() {
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

}  // namespace ax::probe::testing
