// StopSignals: how ax-dns, ax-probe and ax-operator wait for SIGTERM/SIGINT.
// Constructed before any thread starts, it blocks both signals so that every
// thread inherits the mask and only Wait() receives them (no handler runs on
// an arbitrary thread). Nothing else about a program's lifecycle lives here.
#pragma once

#include <signal.h>

namespace ax::runtime {

class StopSignals {
 public:
  StopSignals() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGTERM);
    sigaddset(&set_, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Blocks until one of them arrives; returns its number.
  int Wait() const {
    int signal = 0;
    sigwait(&set_, &signal);
    return signal;
  }

 private:
  sigset_t set_;
};

}  // namespace ax::runtime
