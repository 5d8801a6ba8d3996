// A Service started in process from command-line flags plus test defaults
// (loopback, port 0, two workers, no RRL, no probing: the quickstart's demo
// health endpoints are not running), with an HTTP client for each of its
// listeners. Shared by the service and operating-surface suites.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "server/service.h"
#include "server_test_support.h"

namespace ax::dns::testing {

class ServiceFixture : public ::testing::Test {
 protected:
  void Start(std::vector<std::string> args) {
    for (const char* a :
         {"--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0",
          "--api-listen", "127.0.0.1:0", "--workers", "2", "--no-rrl",
          "--no-probe", "--reload-debounce", "20ms"}) {
      args.emplace_back(a);
    }
    ConfigResult config = ParseConfig(args, {});
    ASSERT_TRUE(config.ok) << config.error;
    service_ = std::make_unique<Service>(config.config);
    std::string error;
    ASSERT_TRUE(service_->Start(&error)) << error;
    dns_ = service_->dns_addresses().at(0);
    ASSERT_NE(dns_.port, 0);
  }
  void StartStandalone(std::vector<std::string> extra = {}) {
    std::filesystem::copy(QuickstartDir(), dir_.path(),
                          std::filesystem::copy_options::recursive);
    extra.insert(extra.begin(), {"--standalone", dir_.path().string()});
    Start(extra);
  }
  // The operating listener (health, metrics), the read-only API and, when
  // started with --admin-listen, the admin listener.
  httplib::Client Http() const { return Client(service_->http_address()); }
  httplib::Client Api() const { return Client(service_->api_address()); }
  httplib::Client Admin() const { return Client(service_->admin_address()); }
  static httplib::Client Client(const runtime::Endpoint& at) {
    return httplib::Client(FormatIp(at.ip), at.port);
  }
  // Every address any node of the served snapshot has.
  std::set<std::string> NodeAddresses() const {
    std::set<std::string> out;
    for (const SnapshotNode& n :
         service_->store().Current()->snapshot().nodes) {
      for (const IpAddress& ip : n.addresses) out.insert(FormatIp(ip));
    }
    return out;
  }

  TempDir dir_;
  std::unique_ptr<Service> service_;
  runtime::Endpoint dns_;
};

}  // namespace ax::dns::testing
