// Watches one directory with inotify on its own thread and calls back,
// debounced, when anything in it changes; optionally also on a fixed tick.
// Watching the directory (not a file) is what makes Kubernetes ConfigMap
// volumes work: they swap a `..data` symlink, so the file itself never
// changes. The callback re-reads whatever path it cares about.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>

#include "ax/runtime/net.h"

namespace ax::runtime {

enum class WatchEvent : uint8_t {
  kChanged,  // something in the directory changed (after the debounce)
  kTick,     // the periodic tick or a Poke; nothing changed in the directory
};

struct WatchOptions {
  std::chrono::milliseconds debounce{200};
  std::chrono::milliseconds tick{0};  // 0: no tick
};

class DirWatcher {
 public:
  // Starts watching at once; the callback runs on the watcher's thread.
  DirWatcher(std::filesystem::path dir, WatchOptions options,
             std::function<void(WatchEvent)> callback);
  ~DirWatcher();  // stops and joins

  // Runs the callback with kTick soon (on the watcher's thread), without
  // waiting for the tick: for state outside the directory that changed, such
  // as a probe verdict. Pokes that arrive together fire once. Thread-safe.
  void Poke() { poke_.Signal(); }
  DirWatcher(const DirWatcher&) = delete;
  DirWatcher& operator=(const DirWatcher&) = delete;

 private:
  void Run();
  bool AddWatch();

  const std::filesystem::path dir_;
  const WatchOptions options_;
  const std::function<void(WatchEvent)> callback_;
  Fd inotify_;
  int watch_ = -1;
  StopSignal stop_;
  StopSignal poke_;  // an eventfd like stop_, drained when seen
  std::thread thread_;
};

}  // namespace ax::runtime
