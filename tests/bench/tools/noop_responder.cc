// ax_noop_responder: the physical limit of a UDP DNS server on this machine.
// Answers every query with a fixed answer (the question copied, QR and AA set,
// one A record 192.0.2.1, no OPT) using recvmmsg/sendmmsg batches on one
// socket with a raised SO_RCVBUF, unfragmentable as ax-dns's answers are by
// default (IP_PMTUDISC_PROBE: DF set, so the kernel picks no IP ID). Whatever
// a real server does beyond this is its own cost; see docs/benchmarks.md.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "dns_query.h"
#include "net_util.h"

namespace ax::bench {
namespace {

constexpr size_t kBufferSize = 2048;
// The answer RR: pointer to the question name, A, IN, TTL 300, 192.0.2.1.
constexpr uint8_t kAnswer[] = {0xC0, 0x0C, 0, 1, 0,   1, 0, 0,
                               1,    44,   0, 4, 192, 0, 2, 1};

volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int /*signal*/) { g_stop = 1; }

struct Options {
  std::string listen = "127.0.0.1:5300";
  int batch = 64;
  int rcvbuf = 4 << 20;
};

void PrintHelp() {
  std::printf(
      "usage: ax_noop_responder [--listen ADDR:PORT] [--batch N] "
      "[--rcvbuf BYTES]\n\n"
      "Answers every DNS query on UDP with a fixed A record (192.0.2.1):\n"
      "the question copied, QR+AA set, no EDNS. The upper bound of any UDP\n"
      "DNS server on this machine. Port 0 picks a free port; the bound\n"
      "address is printed on stdout as 'listening on ADDR:PORT'.\n\n"
      "  --listen ADDR:PORT  address to bind [default: 127.0.0.1:5300]\n"
      "  --batch N           datagrams per recvmmsg/sendmmsg [default: 64]\n"
      "  --rcvbuf BYTES      SO_RCVBUF/SO_SNDBUF [default: 4194304]\n"
      "  --help              this text\n\n"
      "SIGINT/SIGTERM stop it; it prints its counters on stderr.\n");
}

bool ParseInt(const char* text, int min, int max, int* out) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < min || value > max) return false;
  *out = static_cast<int>(value);
  return true;
}

// Returns 0 to continue, 1 for --help, 2 for a usage error.
int ParseOptions(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") return 1;
    if (i + 1 >= argc) {
      std::fprintf(stderr, "ax_noop_responder: %s needs a value\n", argv[i]);
      return 2;
    }
    const char* value = argv[++i];
    bool ok = true;
    if (arg == "--listen") {
      options->listen = value;
    } else if (arg == "--batch") {
      ok = ParseInt(value, 1, 1024, &options->batch);
    } else if (arg == "--rcvbuf") {
      ok = ParseInt(value, 4096, 1 << 30, &options->rcvbuf);
    } else {
      std::fprintf(stderr, "ax_noop_responder: unknown flag %s\n", argv[i - 1]);
      return 2;
    }
    if (!ok) {
      std::fprintf(stderr, "ax_noop_responder: bad value for %s: %s\n",
                   argv[i - 1], value);
      return 2;
    }
  }
  return 0;
}

// Turns the query in `buffer` (`length` bytes) into the fixed answer in place.
// Returns the answer's length, 0 to drop the datagram.
size_t MakeAnswer(uint8_t* buffer, size_t length) {
  if (length < kDnsHeaderSize || (buffer[2] & 0x80) != 0) return 0;  // QR
  const size_t question_end = QuestionEnd(buffer, length);
  if (question_end == 0 || question_end + sizeof(kAnswer) > kBufferSize) {
    return 0;
  }
  buffer[2] = static_cast<uint8_t>(0x80 | (buffer[2] & 0x79) | 0x04);  // QR AA
  buffer[3] = 0;            // NOERROR
  WriteU16(buffer + 6, 1);  // ANCOUNT
  WriteU16(buffer + 8, 0);
  WriteU16(buffer + 10, 0);
  std::memcpy(buffer + question_end, kAnswer, sizeof(kAnswer));
  return question_end + sizeof(kAnswer);
}

int Serve(const Options& options) {
  const std::optional<SocketAddress> at = ParseEndpoint(options.listen);
  if (!at) {
    std::fprintf(stderr, "ax_noop_responder: bad --listen %s\n",
                 options.listen.c_str());
    return 2;
  }
  const int fd = ::socket(at->family(), SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || ::bind(fd, at->get(), at->length) != 0) {
    std::fprintf(stderr, "ax_noop_responder: %s\n",
                 ErrnoMessage("bind " + options.listen).c_str());
    return 1;
  }
  const bool v4 = at->family() == AF_INET;
  const int probe = v4 ? IP_PMTUDISC_PROBE : IPV6_PMTUDISC_PROBE;
  if (::setsockopt(fd, v4 ? IPPROTO_IP : IPPROTO_IPV6,
                   v4 ? IP_MTU_DISCOVER : IPV6_MTU_DISCOVER, &probe,
                   sizeof(probe)) != 0) {
    std::fprintf(stderr, "ax_noop_responder: %s\n",
                 ErrnoMessage("IP_MTU_DISCOVER").c_str());
    return 1;
  }
  const int granted = RaiseSocketBuffers(fd, options.rcvbuf);
  SocketAddress bound;
  bound.length = sizeof(bound.storage);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound.storage), &bound.length);
  std::printf("listening on %s\n", FormatEndpoint(bound).c_str());
  std::fflush(stdout);
  if (granted < options.rcvbuf) {
    std::fprintf(stderr,
                 "ax_noop_responder: SO_RCVBUF capped at %d bytes "
                 "(net.core.rmem_max)\n",
                 granted);
  }

  struct sigaction action = {};
  action.sa_handler = OnSignal;  // no SA_RESTART: recvmmsg returns EINTR
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);

  const auto batch = static_cast<size_t>(options.batch);
  std::vector<uint8_t> buffers(batch * kBufferSize);
  std::vector<sockaddr_storage> names(batch);
  std::vector<iovec> in_iov(batch);
  std::vector<iovec> out_iov(batch);
  std::vector<mmsghdr> in_msgs(batch);
  std::vector<mmsghdr> out_msgs(batch);
  uint64_t received = 0;
  uint64_t sent = 0;
  uint64_t dropped = 0;
  while (!g_stop) {
    for (size_t i = 0; i < batch; ++i) {
      in_iov[i] = {&buffers[i * kBufferSize], kBufferSize};
      msghdr& h = in_msgs[i].msg_hdr;
      h = {};
      h.msg_name = &names[i];
      h.msg_namelen = sizeof(sockaddr_storage);
      h.msg_iov = &in_iov[i];
      h.msg_iovlen = 1;
    }
    // Block for the first datagram, then take whatever else is queued.
    const int got = ::recvmmsg(fd, in_msgs.data(), static_cast<unsigned>(batch),
                               MSG_WAITFORONE, nullptr);
    if (got < 0) {
      if (errno == EINTR) continue;
      std::fprintf(stderr, "ax_noop_responder: %s\n",
                   ErrnoMessage("recvmmsg").c_str());
      return 1;
    }
    received += static_cast<uint64_t>(got);
    unsigned answers = 0;
    for (int i = 0; i < got; ++i) {
      const size_t size =
          MakeAnswer(&buffers[i * kBufferSize], in_msgs[i].msg_len);
      if (size == 0 || (in_msgs[i].msg_hdr.msg_flags & MSG_TRUNC) != 0) {
        ++dropped;
        continue;
      }
      out_iov[answers] = {&buffers[i * kBufferSize], size};
      msghdr& o = out_msgs[answers].msg_hdr;
      o = {};
      o.msg_name = &names[i];
      o.msg_namelen = in_msgs[i].msg_hdr.msg_namelen;
      o.msg_iov = &out_iov[answers];
      o.msg_iovlen = 1;
      ++answers;
    }
    for (unsigned done = 0; done < answers;) {
      const int n = ::sendmmsg(fd, &out_msgs[done], answers - done, 0);
      if (n > 0) {
        done += static_cast<unsigned>(n);
        sent += static_cast<uint64_t>(n);
      } else if (errno != EINTR) {
        dropped += answers - done;  // send buffer full: UDP may drop
        break;
      }
    }
  }
  std::fprintf(stderr,
               "ax_noop_responder: received %llu sent %llu dropped %llu\n",
               static_cast<unsigned long long>(received),
               static_cast<unsigned long long>(sent),
               static_cast<unsigned long long>(dropped));
  ::close(fd);
  return 0;
}

}  // namespace
}  // namespace ax::bench

int main(int argc, char** argv) {
  ax::bench::Options options;
  switch (ax::bench::ParseOptions(argc, argv, &options)) {
    case 1:
      ax::bench::PrintHelp();
      return 0;
    case 2:
      return 2;
    default:
      return ax::bench::Serve(options);
  }
}
