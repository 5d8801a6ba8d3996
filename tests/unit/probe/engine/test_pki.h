// A throwaway PKI for the HTTPS probe tests: a self-signed CA and a server
// certificate it signs (SAN: the given DNS name and 127.0.0.1), generated
// with OpenSSL into a temporary directory that is removed afterwards.
#pragma once

#include <string>

namespace ax::probe::testing {

class TestPki {
 public:
  // Generates everything under a fresh temp dir. ok() says whether it worked.
  explicit TestPki(const std::string& dns_name);
  ~TestPki();
  TestPki(const TestPki&) = delete;
  TestPki& operator=(const TestPki&) = delete;

  bool ok() const { return ok_; }
  const std::string& ca_file() const { return ca_file_; }
  const std::string& cert_file() const { return cert_file_; }
  const std::string& key_file() const { return key_file_; }

 private:
  bool ok_ = false;
  std::string dir_;
  std::string ca_file_;
  std::string cert_file_;
  std::string key_file_;
};

}  // namespace ax::probe::testing
