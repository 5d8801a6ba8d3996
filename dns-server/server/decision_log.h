// The structured decision log: one JSON line per sampled GSLB decision (client,
// ECS, region/area/ISP, route source, candidates and weights, the pick, TTL and
// why) to a file or stderr. Workers push fixed-size records into their own
// bounded single-producer/single-consumer ring (no lock, no allocation; a full
// ring drops and counts); one background thread formats them and writes whole
// lines in batches.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "ax/rng.h"
#include "responder/responder.h"
#include "responder/serving_state.h"

namespace ax::dns {

struct DecisionLogOptions {
  std::string path;    // "-": stderr
  double sample = 0;   // share of decisions logged, 0..1
  size_t ring = 1024;  // records buffered per worker (rounded up to 2^n)
  std::chrono::milliseconds flush_interval{100};
};

// What a worker knows about one decision; names are resolved by the writer
// from `state`, which the record keeps alive.
struct DecisionRecord {
  int64_t ts_ms = 0;
  IpAddress source;  // the packet's source (the resolver, usually)
  Transport transport = Transport::kUdp;
  ResponseInfo info;  // domain, region, client (ECS) and the pick
  std::shared_ptr<const ServingState> state;
};

// Appends the JSON line for `record`, without its newline, to `out`
// (exposed for tests).
void AppendDecision(const DecisionRecord& record, std::string& out);

class DecisionLog {
 public:
  // One worker's ring and sampler. Only its worker calls Sampled and Push.
  class Producer {
   public:
    Producer(size_t capacity, double sample, uint64_t seed);
    // Draws whether to log the next decision; cheap (one RNG step).
    bool Sampled() { return always_ || rng_.Next() < threshold_; }
    // Copies the record into the ring, or counts a drop when it is full.
    void Push(const DecisionRecord& record);

   private:
    friend class DecisionLog;
    std::vector<DecisionRecord> slots_;
    const size_t mask_;
    const bool always_;
    const uint64_t threshold_;
    Rng rng_;
    alignas(64) std::atomic<size_t> head_{0};  // next to read (writer)
    alignas(64) std::atomic<size_t> tail_{0};  // next to fill (worker)
    std::atomic<uint64_t> dropped_{0};
  };

  explicit DecisionLog(DecisionLogOptions options);
  ~DecisionLog();  // Stop()
  DecisionLog(const DecisionLog&) = delete;
  DecisionLog& operator=(const DecisionLog&) = delete;

  // A ring for one more worker; call before Start.
  Producer* AddProducer();
  // Opens the file (append) and starts the writer.
  bool Start(std::string* error);
  // Writes what is buffered, then stops the writer.
  void Stop();

  uint64_t written() const { return written_.load(); }
  uint64_t dropped() const;
  uint64_t write_errors() const { return write_errors_.load(); }

 private:
  void Run();
  void Drain();
  // write(2) until `text` is out; false (counted) on an error.
  bool WriteAll(std::string_view text);

  const DecisionLogOptions options_;
  std::vector<std::unique_ptr<Producer>> producers_;
  int fd_ = -1;
  bool own_fd_ = false;
  std::atomic<uint64_t> written_{0};
  std::atomic<uint64_t> write_errors_{0};

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ax::dns
