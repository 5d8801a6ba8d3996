// ServedSnapshotReader (served_snapshot.h).
#include "sidecar/served_snapshot.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "ax/rfc3339.h"
#include "ax/runtime/log.h"

namespace ax::probe {

std::optional<ServedSnapshot> ParseServedSnapshot(std::string_view body) {
  const nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
  if (!doc.is_object()) return std::nullopt;
  const auto version = doc.find("version");
  const auto hash = doc.find("contentHash");
  const auto loaded = doc.find("loadedAt");
  if (version == doc.end() || !version->is_number_unsigned() ||
      version->get<uint64_t>() == 0 || hash == doc.end() ||
      !hash->is_string() || loaded == doc.end() || !loaded->is_string()) {
    return std::nullopt;
  }
  const std::optional<int64_t> at =
      ParseRfc3339Ms(loaded->get_ref<const std::string&>());
  if (!at) return std::nullopt;
  return ServedSnapshot{.version = version->get<uint64_t>(),
                        .content_hash = hash->get<std::string>(),
                        .loaded_at_ms = *at};
}

ServedSnapshotReader::ServedSnapshotReader(std::string address)
    : address_(std::move(address)) {}

std::optional<ServedSnapshot> ServedSnapshotReader::Read() {
  if (address_.empty()) return std::nullopt;
  std::string why;
  std::optional<ServedSnapshot> served;
  const size_t colon = address_.rfind(':');
  httplib::Client client(address_.substr(0, colon),
                         std::atoi(address_.c_str() + colon + 1));
  client.set_connection_timeout(std::chrono::milliseconds(500));
  client.set_read_timeout(std::chrono::seconds(1));
  if (auto res = client.Get("/v1/snapshot")) {
    served = res->status == 200 ? ParseServedSnapshot(res->body) : std::nullopt;
    if (!served) why = "HTTP " + std::to_string(res->status) + ", no snapshot";
  } else {
    why = httplib::to_string(res.error());
  }
  if (!served && !failing_) {
    runtime::Log(runtime::LogLevel::kWarn,
                 "cannot read what ax-dns serves; reports go without "
                 "spec.served",
                 {{"served_from", address_}, {"error", why}});
  } else if (served && failing_) {
    runtime::Log(runtime::LogLevel::kInfo, "reading what ax-dns serves again",
                 {{"served_from", address_}});
  }
  failing_ = !served;
  return served;
}

}  // namespace ax::probe
