// Hot-path wire benchmarks (issue 3, "measure ldns on the hot path before
// deciding"): parse a query and write a two-A-record answer with our wire code
// vs ldns (ldns_wire2pkt / ldns_pkt2wire), and a whole Responder::Respond on a
// GSLB name. Results and the decision: docs/benchmarks.md, "DNS wire path".
#include <benchmark/benchmark.h>

#include <array>
#include <cstdlib>
#include <vector>

#include "responder/responder.h"
#include "responder/serving_state.h"
#include "responder_world.h"
#include "wire/edns.h"
#include "wire/message_reader.h"
#include "wire/message_writer.h"

// Last: ldns's C headers define macros that break C++ standard headers after
// them.
#include <ldns/ldns.h>

namespace ax::dns {
namespace {

// www.example.test A IN with an OPT (1232, DO) carrying ECS 203.0.113.0/24, as
// a resolver sends it.
std::vector<uint8_t> ResolverQuery() {
  return {0xBE, 0xEF, 0x01, 0x00, 0,   1,    0,   0,   0,   0,   0,   1,
          3,    'w',  'w',  'w',  7,   'e',  'x', 'a', 'm', 'p', 'l', 'e',
          4,    't',  'e',  's',  't', 0,    0,   1,   0,   1,   0,   0,
          41,   0x04, 0xD0, 0,    0,   0x80, 0,   0,   11,  0,   8,   0,
          7,    0,    1,    24,   0,   203,  0,   113};
}

constexpr std::array<uint8_t, 4> kAddresses[2] = {{10, 1, 0, 1}, {10, 1, 0, 2}};

void BM_WireOurs(benchmark::State& state) {
  const std::vector<uint8_t> query = ResolverQuery();
  std::vector<uint8_t> out(1232);
  for (auto _ : state) {
    ParsedQuery q;
    if (ParseQuery(query, &q) != ParseStatus::kOk) state.SkipWithError("parse");
    MessageWriter w(out, out.size());
    w.header().id = q.header.id;
    w.header().flags = kFlagQr | kFlagAa | kFlagRd;
    w.AddQuestion(q.question.name, q.question.qtype, q.question.qclass);
    for (const auto& a : kAddresses) {
      w.StartRecord(Section::kAnswer, q.question.name.wire(), kTypeA, kClassIn,
                    300);
      w.AddBytes(a);
      w.EndRecord();
    }
    ClientSubnet ecs = q.edns.client_subnet;
    ecs.scope_prefix = 24;
    AddOpt(w, {.udp_size = 1232,
               .dnssec_ok = q.edns.dnssec_ok,
               .client_subnet = &ecs});
    benchmark::DoNotOptimize(w.Finish());
  }
}
BENCHMARK(BM_WireOurs);

void BM_WireLdns(benchmark::State& state) {
  const std::vector<uint8_t> query = ResolverQuery();
  for (auto _ : state) {
    ldns_pkt* q = nullptr;
    if (ldns_wire2pkt(&q, query.data(), query.size()) != LDNS_STATUS_OK) {
      state.SkipWithError("parse");
      break;
    }
    ldns_pkt* r = ldns_pkt_new();
    ldns_pkt_set_id(r, ldns_pkt_id(q));
    ldns_pkt_set_qr(r, true);
    ldns_pkt_set_aa(r, true);
    ldns_pkt_set_rd(r, ldns_pkt_rd(q));
    ldns_rr* question = ldns_rr_list_rr(ldns_pkt_question(q), 0);
    ldns_pkt_push_rr(r, LDNS_SECTION_QUESTION, ldns_rr_clone(question));
    for (const auto& a : kAddresses) {
      ldns_rr* rr = ldns_rr_new_frm_type(LDNS_RR_TYPE_A);
      ldns_rr_set_owner(rr, ldns_rdf_clone(ldns_rr_owner(question)));
      ldns_rr_set_ttl(rr, 300);
      ldns_rr_set_rdf(rr, ldns_rdf_new_frm_data(LDNS_RDF_TYPE_A, 4, a.data()),
                      0);
      ldns_pkt_push_rr(r, LDNS_SECTION_ANSWER, rr);
    }
    ldns_pkt_set_edns_udp_size(r, 1232);
    ldns_pkt_set_edns_do(r, ldns_pkt_edns_do(q));
    // The ECS echo: the query's option data with SCOPE set (offset 7).
    ldns_rdf* data = ldns_rdf_clone(ldns_pkt_edns_data(q));
    ldns_rdf_data(data)[7] = 24;
    ldns_pkt_set_edns_data(r, data);
    uint8_t* wire = nullptr;
    size_t size = 0;
    if (ldns_pkt2wire(&wire, r, &size) != LDNS_STATUS_OK)
      state.SkipWithError("write");
    benchmark::DoNotOptimize(size);
    std::free(wire);
    ldns_pkt_free(r);
    ldns_pkt_free(q);
  }
}
BENCHMARK(BM_WireLdns);

// The whole query path: parse, classify (CIDR region from the ECS address),
// Decide, write two A records and the OPT with the ECS scope. No geo database,
// no RRL.
void BM_RespondGslb(benchmark::State& state) {
  std::string error;
  const auto serving = ServingState::Make(
      std::make_shared<Snapshot>(testing::ResponderWorld().Build()), {},
      &error);
  if (!serving) {
    state.SkipWithError(error.c_str());
    return;
  }
  Responder responder(ResponderOptions{}, 1, nullptr);
  const std::vector<uint8_t> query = ResolverQuery();
  std::vector<uint8_t> out(65535);
  const QueryMeta meta{*ParseIp("198.51.100.7"), Transport::kUdp, 1'000'000};
  ResponseInfo info;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        responder.Respond(serving.get(), nullptr, meta, query, out, &info));
  }
  if (info.answers != 2) state.SkipWithError("expected two A records");
}
BENCHMARK(BM_RespondGslb);

}  // namespace
}  // namespace ax::dns

BENCHMARK_MAIN();
