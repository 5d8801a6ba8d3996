// The decision log: a record's JSON fields, a full ring dropping (and
// counting) instead of blocking, and the writer draining to the file on stop.
#include "server/decision_log.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "ops_world.h"
#include "server_test_support.h"

namespace ax::dns {
namespace {

using testing::OpsWorld;
using testing::ReadFile;
using testing::Serve;
using testing::TempDir;

// www for an ECS client in east: b (a is excluded by rule).
DecisionRecord EastRecord(std::shared_ptr<const ServingState> state) {
  const Snapshot& s = state->snapshot();
  DecisionRecord r;
  r.ts_ms = 1234;
  r.source = *ParseIp("198.51.100.53");
  r.info.qtype = 1;
  r.info.domain = testing::DomainIndex(s, "www");
  r.info.region = ax::testing::RegionIndex(s, "east");
  r.info.client = {*ParseIp("192.0.2.0"), 24, true};
  Rng rng(1);
  r.info.decision = Decide(s, s.domains[r.info.domain], r.info.region, {},
                           IpFamily::kV4, 1'000'000, rng);
  r.info.route = r.info.decision.route;
  r.state = std::move(state);
  return r;
}

// The line for `record`, as a reader parses it.
nlohmann::ordered_json Line(const DecisionRecord& record) {
  std::string text;
  AppendDecision(record, text);
  return nlohmann::ordered_json::parse(text);
}

TEST(DecisionLogTest, RecordFields) {
  const nlohmann::ordered_json line = Line(EastRecord(Serve(OpsWorld())));
  EXPECT_EQ(line["ts"], 1234);
  EXPECT_EQ(line["msg"], "decision");
  EXPECT_EQ(line["client"], "198.51.100.53");
  EXPECT_EQ(line["ecs"], "192.0.2.0/24");
  EXPECT_EQ(line["qname"], "www.example.test");
  EXPECT_EQ(line["qtype"], "A");
  EXPECT_EQ(line["region"], "east");
  EXPECT_EQ(line["area"], "east");
  EXPECT_EQ(line["isp"], "any");
  EXPECT_EQ(line["source"], "Region");
  ASSERT_EQ(line["candidates"].size(), 1u);  // a is excluded
  EXPECT_EQ(line["candidates"][0]["node"], "b");
  EXPECT_TRUE(line["candidates"][0]["weight"].is_number());
  EXPECT_EQ(line["chosen"], nlohmann::ordered_json::array({"b"}));
  EXPECT_EQ(line["ttl"], 300);
  EXPECT_EQ(line["spilled"], false);
  EXPECT_EQ(line["ttlReason"], "steady");
  EXPECT_EQ(line["reason"], "Region; rule www-no-a");
  EXPECT_EQ(line["snapshotVersion"], 1);
  // The fields in the order readers have seen since the log began.
  std::vector<std::string> keys;
  for (const auto& [key, value] : line.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "ts",         "msg",       "client", "ecs",
                      "protocol",   "qname",     "qtype",  "domain",
                      "region",     "area",      "isp",    "source",
                      "candidates", "chosen",    "canary", "spilled",
                      "ttl",        "ttlReason", "reason", "snapshotVersion"}));
}

TEST(DecisionLogTest, ASpilledDecisionSaysSoAndNamesTheRouteItGot) {
  // b (www's only node in east: a is excluded) past the knee; east falls back
  // to west (c), which has room.
  ax::testing::TestWorld w = OpsWorld();
  w.world.regions[0].fallback_regions = {"west"};
  for (const char* n : {"b", "c"}) w.node(n).capacity.connections = 100;
  w.status["b"].load = NodeLoad{0, 100};
  w.status["c"].load = NodeLoad{0, 10};
  const auto state = Serve(w);
  DecisionRecord record = EastRecord(state);
  const Snapshot& s = state->snapshot();
  Rng rng(1);
  for (uint64_t cohort = 0; !record.info.decision.spilled; ++cohort) {
    ASSERT_LT(cohort, 1000u) << "a 20% share spilled nobody";
    record.info.decision =
        Decide(s, s.domains[record.info.domain], record.info.region,
               ClientContext{cohort}, IpFamily::kV4, 1'000'000, rng);
  }
  record.info.route = record.info.decision.route;
  const nlohmann::ordered_json line = Line(record);
  EXPECT_EQ(line["spilled"], true);
  EXPECT_EQ(line["region"], "east");
  EXPECT_EQ(line["source"], "FallbackRegion");
  EXPECT_EQ(line["chosen"], nlohmann::ordered_json::array({"c"}));
  EXPECT_EQ(line["ttlReason"], "spill");
  EXPECT_EQ(line["reason"],
            "FallbackRegion via west (spill-over: its region is past the "
            "knee)");
}

TEST(DecisionLogTest, FullRingDropsAndTheWriterDrainsOnStop) {
  TempDir dir;
  const auto path = dir / "decisions.jsonl";
  DecisionLog log({.path = path.string(), .sample = 1, .ring = 2});
  DecisionLog::Producer* producer = log.AddProducer();
  EXPECT_TRUE(producer->Sampled());  // sample 1: every decision
  const DecisionRecord record = EastRecord(Serve(OpsWorld()));
  for (int i = 0; i < 3; ++i) producer->Push(record);  // the writer is not on
  EXPECT_EQ(log.dropped(), 1u);
  std::string error;
  ASSERT_TRUE(log.Start(&error)) << error;
  log.Stop();
  EXPECT_EQ(log.written(), 2u);
  std::istringstream lines(ReadFile(path));
  int count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    EXPECT_EQ(nlohmann::json::parse(line)["chosen"][0], "b");
  }
  EXPECT_EQ(count, 2);
}

TEST(DecisionLogTest, LinesGoOutWholeAndInOrderAcrossBatches) {
  // Enough lines for several 64 KiB batches, from two workers.
  TempDir dir;
  const auto path = dir / "decisions.jsonl";
  DecisionLog log({.path = path.string(), .sample = 1, .ring = 2048});
  DecisionLog::Producer* first = log.AddProducer();
  DecisionLog::Producer* second = log.AddProducer();
  DecisionRecord record = EastRecord(Serve(OpsWorld()));
  constexpr int kEach = 1000;
  for (int i = 0; i < kEach; ++i) {
    record.ts_ms = 1'000'000 + i;
    first->Push(record);
    record.ts_ms = 2'000'000 + i;
    second->Push(record);
  }
  std::string error;
  ASSERT_TRUE(log.Start(&error)) << error;
  log.Stop();
  EXPECT_EQ(log.written(), 2u * kEach);
  EXPECT_EQ(log.write_errors(), 0u);
  const std::string text = ReadFile(path);
  ASSERT_GT(text.size(), 2u << 16);
  std::istringstream lines(text);
  std::vector<int64_t> timestamps[2];  // by producer
  for (std::string line; std::getline(lines, line);) {
    const int64_t ts = nlohmann::json::parse(line)["ts"];
    timestamps[ts < 2'000'000 ? 0 : 1].push_back(ts);
  }
  for (const auto& producer : timestamps) {
    EXPECT_EQ(producer.size(), static_cast<size_t>(kEach));
    EXPECT_TRUE(std::is_sorted(producer.begin(), producer.end()));
  }
}

// The scheduling policy (field 41 of /proc/.../stat) of this process's thread
// named `name`, or -1 when there is none.
int PolicyOfThread(const std::string& name) {
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/self/task")) {
    std::string comm = ReadFile(task.path() / "comm");
    if (comm != name + "\n") continue;
    // The fields after the parenthesised name, which may hold spaces.
    const std::string stat = ReadFile(task.path() / "stat");
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string field;
    for (int i = 3; i <= 41 && fields >> field; ++i) {
    }
    return std::stoi(field);
  }
  return -1;
}

TEST(DecisionLogTest, TheWriterRunsOnlyWhenWorkersLeaveTheCoreIdle) {
  TempDir dir;
  DecisionLog log({.path = (dir / "d.jsonl").string(), .sample = 1});
  log.AddProducer();
  std::string error;
  ASSERT_TRUE(log.Start(&error)) << error;
  int policy = -1;
  for (int i = 0; i < 200 && policy == -1; ++i) {
    policy = PolicyOfThread("decision-log");
    if (policy == -1) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  log.Stop();
  EXPECT_EQ(policy, SCHED_IDLE);
}

TEST(DecisionLogTest, SampleZeroNeverSamples) {
  DecisionLog log({.path = "-", .sample = 0});
  DecisionLog::Producer* producer = log.AddProducer();
  for (int i = 0; i < 1000; ++i) ASSERT_FALSE(producer->Sampled());
}

}  // namespace
}  // namespace ax::dns
