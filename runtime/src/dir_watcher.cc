// The inotify loop: poll on the inotify fd and the stop signal; any event
// arms the debounce deadline; the deadline or the tick fires the callback.
// When the directory itself goes away the watch is re-added once it is back.
#include "ax/runtime/dir_watcher.h"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <array>

#include "ax/runtime/log.h"

namespace ax::runtime {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kMask = IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO |
                           IN_MOVED_FROM | IN_DELETE | IN_ATTRIB |
                           IN_DELETE_SELF | IN_MOVE_SELF;
// How often to retry watching a directory that does not exist (yet).
constexpr std::chrono::milliseconds kRewatchEvery{500};

}  // namespace

DirWatcher::DirWatcher(std::filesystem::path dir, WatchOptions options,
                       std::function<void(WatchEvent)> callback)
    : dir_(std::move(dir)),
      options_(options),
      callback_(std::move(callback)),
      inotify_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
  if (!inotify_.valid()) {
    Log(LogLevel::kError,
        "inotify_init1 failed; changes are seen on ticks only",
        {{"dir", dir_.string()}, {"error", ErrnoText(errno)}});
  } else {
    AddWatch();
  }
  thread_ = std::thread([this] { Run(); });
}

DirWatcher::~DirWatcher() {
  stop_.Signal();
  thread_.join();
}

bool DirWatcher::AddWatch() {
  watch_ = ::inotify_add_watch(inotify_.get(), dir_.c_str(), kMask);
  return watch_ >= 0;
}

void DirWatcher::Run() {
  // kNever: nothing pending, or no tick (plain time points: GCC -O2 warned
  // that optional ones may be used uninitialised).
  constexpr Clock::time_point kNever = Clock::time_point::max();
  Clock::time_point debounce_at = kNever;
  Clock::time_point tick_at =
      options_.tick.count() > 0 ? Clock::now() + options_.tick : kNever;
  alignas(inotify_event) std::array<char, 8192> buf;

  while (true) {
    Clock::time_point wake = std::min(debounce_at, tick_at);
    const bool unwatched = inotify_.valid() && watch_ < 0;
    if (unwatched) wake = std::min(wake, Clock::now() + kRewatchEvery);
    int timeout_ms = -1;
    if (wake != kNever) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          wake - Clock::now());
      timeout_ms = static_cast<int>(std::max<int64_t>(0, left.count() + 1));
    }
    pollfd fds[3] = {{stop_.fd(), POLLIN, 0},
                     {poke_.fd(), POLLIN, 0},
                     {inotify_.get(), POLLIN, 0}};
    const int n = ::poll(fds, inotify_.valid() ? 3 : 2, timeout_ms);
    if (n < 0 && errno != EINTR) {
      Log(LogLevel::kError, "poll failed in the directory watcher",
          {{"dir", dir_.string()}, {"error", ErrnoText(errno)}});
      return;
    }
    if (fds[0].revents != 0) return;

    bool poked = false;
    if (n > 0 && fds[1].revents != 0) {
      uint64_t count = 0;
      poked = ::read(poke_.fd(), &count, sizeof count) > 0;
    }
    if (n > 0 && inotify_.valid() && fds[2].revents != 0) {
      ssize_t len = 0;
      while ((len = ::read(inotify_.get(), buf.data(), buf.size())) > 0) {
        for (ssize_t off = 0; off < len;) {
          const auto* ev = reinterpret_cast<const inotify_event*>(&buf[off]);
          if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
            if (ev->wd == watch_) watch_ = -1;
          }
          off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
        }
        debounce_at = Clock::now() + options_.debounce;
      }
    }
    if (unwatched && AddWatch()) {
      // The directory came back: whatever is in it now is news.
      debounce_at = Clock::now() + options_.debounce;
    }

    const Clock::time_point now = Clock::now();
    if (debounce_at != kNever && now >= debounce_at) {
      debounce_at = kNever;
      callback_(WatchEvent::kChanged);
      // A change also counts as the tick: no need to fire both back to back.
      if (tick_at != kNever) tick_at = Clock::now() + options_.tick;
    } else if (poked || (tick_at != kNever && now >= tick_at)) {
      if (tick_at != kNever) tick_at = Clock::now() + options_.tick;
      callback_(WatchEvent::kTick);
    }
  }
}

}  // namespace ax::runtime
