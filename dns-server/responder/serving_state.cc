// ServingState: validates a snapshot + zone settings into an immutable index of
// pre-encoded names, so that the query path only hashes and compares octets;
// plus the geo region map attached later (the one mutable, atomic part).
#include "responder/serving_state.h"

#include <algorithm>
#include <optional>

#include "ax/srv.h"
#include "geo/geo_resolver.h"
#include "wire/name.h"

namespace ax::dns {
namespace {

// A gRPC service config as gRPC's DNS resolver reads it from TXT (gRFC A2): the
// attribute "grpc_config=" and a JSON array of choices, here one choice that
// applies to every client. Character-strings hold at most 255 octets (RFC 1035
// §3.3.14); gRPC joins a record's strings back together.
std::string GrpcTxtRdata(const std::string& service_config) {
  const std::string text =
      "grpc_config=[{\"serviceConfig\":" + service_config + "}]";
  std::string rdata;
  for (size_t at = 0; at < text.size(); at += 255) {
    const size_t n = std::min<size_t>(255, text.size() - at);
    rdata.push_back(static_cast<char>(n));
    rdata.append(text, at, n);
  }
  return rdata;
}

std::optional<std::string> EncodeLower(const std::string& text) {
  std::optional<std::string> wire = EncodeName(text);
  if (wire) {
    for (char& c : *wire)
      c = static_cast<char>(LowerOctet(static_cast<uint8_t>(c)));
  }
  return wire;
}

bool Encode(const std::string& what, const std::string& text, std::string* out,
            std::string* error) {
  std::optional<std::string> wire = EncodeLower(text);
  if (!wire) {
    *error = what + " '" + text + "' is not a valid domain name";
    return false;
  }
  *out = std::move(*wire);
  return true;
}

bool InZone(const std::string& fqdn, const std::string& zone) {
  return fqdn == zone || (fqdn.size() > zone.size() && fqdn.ends_with(zone) &&
                          fqdn[fqdn.size() - zone.size() - 1] == '.');
}

// Leaves room in a 64 KiB message for the header, question and OPT.
constexpr size_t kMaxTxtRdata = 60000;

// Whether records already live at the name (an empty non-terminal has none).
bool HasData(const ServedName& name) {
  return name.domain != kNoIndex || name.grpc_config != kNoIndex ||
         name.name_server != kNoIndex || name.srv_domain != kNoIndex ||
         name.target_domain != kNoIndex;
}

}  // namespace

ServingState::ServingState(std::shared_ptr<const Snapshot> snapshot)
    : snapshot_(std::move(snapshot)), classifier_(*snapshot_) {}

std::shared_ptr<const ServingState> ServingState::Make(
    std::shared_ptr<const Snapshot> snapshot,
    const std::vector<ZoneConfig>& zones, std::string* error) {
  std::shared_ptr<ServingState> state(new ServingState(std::move(snapshot)));
  for (const ZoneConfig& z : zones) {
    if (!state->AddZone(z, error)) return nullptr;
  }
  for (const SnapshotDomain& d : state->snapshot_->domains) {
    const std::optional<std::string> apex = EncodeLower(d.zone);
    if (apex && !state->zone_index_.contains(*apex) &&
        !state->AddZone(ZoneConfig{.name = d.zone}, error)) {
      return nullptr;
    }
  }
  for (uint32_t i = 0; i < state->zones_.size(); ++i) {
    state->AddName(state->zones_[i].apex, i).apex = true;
  }
  for (uint32_t i = 0; i < state->zones_.size(); ++i) {
    if (!state->AddNameServers(i, error)) return nullptr;
  }
  for (uint32_t i = 0; i < state->snapshot_->domains.size(); ++i) {
    if (!state->AddDomain(i, error)) return nullptr;
  }
  return state;
}

bool ServingState::AddZone(ZoneConfig config, std::string* error) {
  std::vector<std::string> ns_names;
  for (const NameServer& ns : config.ns) ns_names.push_back(ns.name);
  if (ns_names.empty()) ns_names.push_back("ns1." + config.name);
  if (config.mname.empty()) config.mname = ns_names.front();
  if (config.rname.empty()) config.rname = "hostmaster." + config.name;
  ServedZone z;
  if (!Encode("zone", config.name, &z.apex, error) ||
      !Encode("SOA MNAME of zone " + config.name, config.mname, &z.mname,
              error) ||
      !Encode("SOA RNAME of zone " + config.name, config.rname, &z.rname,
              error)) {
    return false;
  }
  if (z.apex.size() == 1) {
    *error = "serving the root zone is not supported";
    return false;
  }
  for (const std::string& ns : ns_names) {
    std::string wire;
    if (!Encode("NS of zone " + config.name, ns, &wire, error)) return false;
    // RFC 2181 §5: an RRset holds no duplicate records.
    if (std::find(z.ns.begin(), z.ns.end(), wire) != z.ns.end()) {
      *error = "zone " + config.name + " lists name server " + ns + " twice";
      return false;
    }
    z.ns.push_back(std::move(wire));
  }
  if (!zone_index_.emplace(z.apex, static_cast<uint32_t>(zones_.size()))
           .second) {
    *error = "zone " + config.name + " is configured twice";
    return false;
  }
  z.negative_ttl = std::min(config.ttl, config.minimum);
  z.config = std::move(config);
  zones_.push_back(std::move(z));
  return true;
}

bool ServingState::AddNameServers(uint32_t zone, std::string* error) {
  const ServedZone& z = zones_[zone];
  for (uint32_t i = 0; i < z.config.ns.size(); ++i) {
    const NameServer& ns = z.config.ns[i];
    const std::string what =
        "zone " + z.config.name + ": name server " + ns.name;
    // Inside: this zone is the longest served one containing the name (a
    // served child zone holds its own names).
    if (FindZone(z.ns[i]) != zone) {
      if (!ns.addresses.empty()) {
        *error =
            what + " is outside the zone: its addresses belong to its own zone";
        return false;
      }
      continue;
    }
    if (ns.addresses.empty()) {
      *error = what +
               " is inside the zone and needs an address: a resolver "
               "following the delegation could not reach it";
      return false;
    }
    // First on its name: NS names are unique per zone and indexed before
    // the domains, which check for it.
    AddName(z.ns[i], zone).name_server = i;
  }
  return true;
}

ServedName& ServingState::AddName(const std::string& name, uint32_t zone) {
  const size_t apex_size = zones_[zone].apex.size();
  for (size_t at = 0; name.size() - at > apex_size;
       at += 1 + static_cast<uint8_t>(name[at])) {
    names_.try_emplace(name.substr(at), ServedName{zone});
  }
  return names_.try_emplace(name, ServedName{zone}).first->second;
}

bool ServingState::AddDomain(uint32_t index, std::string* error) {
  const SnapshotDomain& d = snapshot_->domains[index];
  std::string fqdn;
  if (!Encode("domain " + d.name + " fqdn", d.fqdn, &fqdn, error)) return false;
  const uint32_t zone = FindZone(fqdn);
  if (!InZone(d.fqdn, d.zone) || zone == kNoIndex) {
    *error =
        "domain " + d.name + ": " + d.fqdn + " is not inside zone " + d.zone;
    return false;
  }
  ServedName& entry = AddName(fqdn, zone);
  if (HasData(entry)) {
    *error = "domain " + d.name + ": " + d.fqdn + " is already served";
    return false;
  }
  entry.domain = index;
  ServedDomain& served = domains_.emplace_back();
  served.fqdn = fqdn;
  if (!d.fallback.cname.empty()) {
    // RFC 1034 §3.6.2: a CNAME owner has no other data, and an apex has SOA and
    // NS.
    if (entry.apex) {
      *error = "domain " + d.name +
               ": a CNAME fallback cannot sit at zone apex " + d.fqdn;
      return false;
    }
    if (!Encode("domain " + d.name + " fallback CNAME", d.fallback.cname,
                &served.cname, error)) {
      return false;
    }
  }
  served.one_route =
      std::all_of(d.routes.begin(), d.routes.end(),
                  [&](uint32_t r) { return r == d.routes.front(); });
  served.needs_location = d.strategy == Strategy::kGeoClosest;
  served.subnet_strategy =
      d.strategy == Strategy::kConsistentHash || served.needs_location;
  if (!d.grpc_service_config.empty()) {
    served.grpc_txt = GrpcTxtRdata(d.grpc_service_config);
    if (served.grpc_txt.size() > kMaxTxtRdata) {
      *error = "domain " + d.name +
               ": gRPC service config too large for one TXT record";
      return false;
    }
    std::string wire;
    ServedName* txt = AddDataName(index, "TXT name", "_grpc_config." + d.fqdn,
                                  zone, wire, error);
    if (!txt) return false;
    txt->grpc_config = index;
  }
  return AddSrv(index, zone, error);
}

ServedName* ServingState::AddDataName(uint32_t index, const std::string& what,
                                      const std::string& text, uint32_t zone,
                                      std::string& wire, std::string* error) {
  const std::string& domain = snapshot_->domains[index].name;
  if (!Encode("domain " + domain + " " + what, text, &wire, error)) {
    return nullptr;
  }
  ServedName& name = AddName(wire, zone);
  if (HasData(name)) {
    *error = "domain " + domain + ": " + text + " is already served";
    return nullptr;
  }
  return &name;
}

bool ServingState::AddSrv(uint32_t index, uint32_t zone, std::string* error) {
  const SnapshotDomain& d = snapshot_->domains[index];
  if (d.srv.empty()) return true;
  std::string wire;
  for (uint32_t i = 0; i < d.srv.size(); ++i) {
    ServedName* name = AddDataName(
        index, "SRV name", SrvOwnerName(d.srv[i], d.fqdn), zone, wire, error);
    if (!name) return false;
    name->srv_domain = index;
    name->srv_service = i;
  }
  std::vector<std::string>& targets = domains_[index].srv_targets;
  for (uint32_t n = 0; n < snapshot_->nodes.size(); ++n) {
    ServedName* name = AddDataName(
        index, "SRV target", SrvTargetName(snapshot_->nodes[n].name, d.fqdn),
        zone, wire, error);
    if (!name) return false;
    name->target_domain = index;
    name->target_node = n;
    targets.push_back(wire);
  }
  return true;
}

uint32_t ServingState::FindZone(std::string_view name) const {
  for (size_t at = 0; at < name.size() && name[at] != 0;
       at += 1 + static_cast<uint8_t>(name[at])) {
    auto it = zone_index_.find(name.substr(at));
    if (it != zone_index_.end()) return it->second;
  }
  return kNoIndex;
}

const ServedName* ServingState::FindName(const HashedName& name) const {
  auto it = names_.find(name);
  return it == names_.end() ? nullptr : &it->second;
}

ServingState::GeoAttach ServingState::AttachGeo(
    const GeoResolver& geo, const ServingState* previous) const {
  const std::shared_ptr<const GeoRegionMap> current = geo_regions();
  if (current && current->generation() == geo.generation()) {
    return GeoAttach::kNone;
  }
  if (previous != nullptr) {
    std::shared_ptr<const GeoRegionMap> theirs = previous->geo_regions();
    if (theirs && theirs->generation() == geo.generation() &&
        classifier_.SameGeoStep(previous->classifier_)) {
      geo_regions_.store(std::move(theirs), std::memory_order_release);
      geo_attachments_.fetch_add(1, std::memory_order_release);
      return GeoAttach::kReused;
    }
  }
  std::shared_ptr<const GeoRegionMap> map =
      GeoRegionMap::Build(classifier_, geo);
  if (!map) return GeoAttach::kNone;
  geo_regions_.store(std::move(map), std::memory_order_release);
  geo_attachments_.fetch_add(1, std::memory_order_release);
  return GeoAttach::kBuilt;
}

}  // namespace ax::dns
