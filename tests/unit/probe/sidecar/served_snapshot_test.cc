// --served-from: /v1/snapshot bodies parsed strictly, and read from a real
// HTTP server on a free loopback port (and from none).
#include "sidecar/served_snapshot.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <thread>

namespace ax::probe {
namespace {

constexpr char kBody[] =
    R"({"version":43,"contentHash":"9f2c","loadedAt":"2026-11-30T04:53:33.123Z",)"
    R"("ageSeconds":2,"current":true,"history":[42,43],"rolledBack":false})";

TEST(ServedSnapshotTest, ParsesWhatAxDnsSays) {
  const std::optional<ServedSnapshot> s = ParseServedSnapshot(kBody);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->version, 43u);
  EXPECT_EQ(s->content_hash, "9f2c");
  EXPECT_EQ(s->loaded_at_ms, 1'796'014'413'123);
  for (
      const char* bad :
      {"", "not json", "[]",
       R"({"version":0,"contentHash":"a","loadedAt":"2026-11-30T04:53:33Z"})",
       R"({"version":"43","contentHash":"a","loadedAt":"2026-11-30T04:53:33Z"})",
       R"({"version":43,"loadedAt":"2026-11-30T04:53:33Z"})",
       R"({"version":43,"contentHash":"a","loadedAt":"yesterday"})",
       R"({"error":"no snapshot yet"})"}) {
    EXPECT_FALSE(ParseServedSnapshot(bad)) << bad;
  }
}

TEST(ServedSnapshotTest, ReadsTheNeighbourOverHttp) {
  httplib::Server server;
  std::atomic<int> status = 503;
  server.Get("/v1/snapshot", [&](const httplib::Request&,
                                 httplib::Response& r) {
    r.status = status.load();
    r.set_content(r.status == 200 ? kBody : R"({"error":"no snapshot yet"})",
                  "application/json");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread serving([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::yield();
  ServedSnapshotReader reader("127.0.0.1:" + std::to_string(port));
  EXPECT_FALSE(reader.Read());  // 503 before ax-dns serves a snapshot
  status = 200;
  const std::optional<ServedSnapshot> s = reader.Read();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->version, 43u);
  server.stop();
  serving.join();
  EXPECT_FALSE(reader.Read());  // nobody listening now
  EXPECT_FALSE(ServedSnapshotReader("").Read());
}

}  // namespace
}  // namespace ax::probe
