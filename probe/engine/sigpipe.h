// Keeps SIGPIPE from killing the process while probing. OpenSSL writes to
// the socket with write(2), which raises SIGPIPE on a peer that has gone;
// blocking the signal in the probing thread turns that into EPIPE without
// touching the process-wide disposition the embedding program chose.
#pragma once

#include <signal.h>

namespace ax::probe {

// Blocks SIGPIPE in the calling thread for its lifetime. On destruction
// discards a SIGPIPE raised meanwhile, then restores the previous mask.
class ScopedSigpipeBlock {
 public:
  ScopedSigpipeBlock();
  ~ScopedSigpipeBlock();
  ScopedSigpipeBlock(const ScopedSigpipeBlock&) = delete;
  ScopedSigpipeBlock& operator=(const ScopedSigpipeBlock&) = delete;

 private:
  sigset_t old_;
  bool was_blocked_ = false;
};

}  // namespace ax::probe
