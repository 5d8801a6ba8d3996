// The query path allocates nothing once a ServingState is built: every global
// operator new in this binary is counted, and answering a spread of queries
// (GSLB with ECS, negative, TXT, NS with glue, name server addresses,
// truncated, errors) must not move the count.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "dns_test_util.h"
#include "responder/responder.h"
#include "responder/serving_state.h"

namespace {
std::atomic<long> allocations{0};
}  // namespace

void* operator new(size_t size) {
  ++allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  ++allocations;
  return std::malloc(size ? size : 1);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace ax::dns {
namespace {

TEST(AllocationTest, AnsweringAllocatesNothing) {
  std::string error;
  const ZoneConfig zone{.name = "example.test",
                        .ns = {{.name = "ns1.example.test",
                                .addresses = {*ParseIp("192.0.2.53"),
                                              *ParseIp("2001:db8::53")}}}};
  auto state = ServingState::Make(
      std::make_shared<Snapshot>(testing::ResponderWorld().Build()), {zone},
      &error);
  ASSERT_NE(state, nullptr) << error;
  Responder responder(ResponderOptions{.identity = "ax"}, 1, nullptr);
  std::vector<std::vector<uint8_t>> queries;
  for (const char* name :
       {"www.example.test", "hash.example.test", "canary.example.test",
        "origin.example.test", "nope.example.test", "big.example.test",
        "www.example.org"}) {
    testing::Query q;
    q.name = name;
    q.Edns(testing::Ecs("203.0.113.0", 24));
    queries.push_back(testing::Build(q));
  }
  testing::Query txt;
  txt.name = "_grpc_config.api.example.test";
  txt.qtype = kTypeTxt;
  queries.push_back(testing::Build(txt));
  for (const char* name :
       {"_http._tcp.www.example.test", "_http._tcp.hash.example.test",
        "_http._tcp.fixed.example.test"}) {
    testing::Query srv;
    srv.name = name;
    srv.qtype = kTypeSrv;
    srv.Edns(testing::Ecs("203.0.113.0", 24));
    queries.push_back(testing::Build(srv));
  }
  testing::Query target;
  target.name = "e1.www.example.test";
  queries.push_back(testing::Build(target));
  testing::Query ns;
  ns.name = "example.test";
  ns.qtype = kTypeNs;
  queries.push_back(testing::Build(ns));
  testing::Query ns_address;
  ns_address.name = "ns1.example.test";
  ns_address.qtype = kTypeAaaa;
  queries.push_back(testing::Build(ns_address));
  testing::Query bad;
  bad.qdcount = 2;
  queries.push_back(testing::Build(bad));
  std::vector<uint8_t> out(65535);
  const QueryMeta meta{*ParseIp("198.51.100.7"), Transport::kUdp, 1'000'000};
  const long before = allocations.load();
  size_t answered = 0;
  for (int round = 0; round < 10; ++round) {
    for (const auto& query : queries) {
      answered += responder.Respond(state.get(), nullptr, meta, query, out) > 0;
    }
  }
  EXPECT_EQ(allocations.load() - before, 0);
  EXPECT_EQ(answered, 10 * queries.size());
}

}  // namespace
}  // namespace ax::dns
