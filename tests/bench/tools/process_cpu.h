// The CPU time of another process (all its threads), read through its
// CPU-time clock: nanoseconds, where /proc's ticks count whole 10 ms.
#ifndef AX_TESTS_BENCH_TOOLS_PROCESS_CPU_H_
#define AX_TESTS_BENCH_TOOLS_PROCESS_CPU_H_

#include <sys/types.h>
#include <time.h>

#include <cstdint>

namespace ax::bench {

class ProcessCpu {
 public:
  explicit ProcessCpu(pid_t pid);
  // False when there is no such process (or its clock is not readable).
  bool ok() const { return ok_; }
  // CPU time so far, or -1 when it cannot be read (the process is gone).
  int64_t Ns() const;

 private:
  clockid_t clock_ = 0;
  bool ok_ = false;
};

}  // namespace ax::bench

#endif  // AX_TESTS_BENCH_TOOLS_PROCESS_CPU_H_
