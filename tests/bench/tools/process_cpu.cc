#include "process_cpu.h"

namespace ax::bench {

ProcessCpu::ProcessCpu(pid_t pid)
    : ok_(::clock_getcpuclockid(pid, &clock_) == 0 && Ns() >= 0) {}

int64_t ProcessCpu::Ns() const {
  timespec ts = {};
  if (::clock_gettime(clock_, &ts) != 0) return -1;
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace ax::bench
