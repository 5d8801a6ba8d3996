// Wiring and lifecycle: start order is geo -> snapshot source -> UDP -> TCP (on
// the ports UDP resolved) -> decision log -> HTTP -> redirector ->
// housekeeping; stop runs the reverse.
#include "server/service.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "ax/runtime/log.h"
#include "ax/runtime/random_seed.h"

namespace ax::dns {

Service::Service(ServerConfig config)
    : config_(std::move(config)),
      store_(config_.zones, static_cast<size_t>(config_.snapshot_history)) {}

Service::~Service() { Stop(); }

bool Service::Start(std::string* error) {
  // Geo first: every snapshot state gets the geo tables attached before it is
  // served.
  if (!StartGeo(error)) return false;
  if (!config_.decision_log.empty()) {
    decision_log_ = std::make_unique<DecisionLog>(DecisionLogOptions{
        .path = config_.decision_log, .sample = config_.decision_log_sample});
  }
  // Before the source: the first snapshot may be served before any worker
  // exists, and every served one gets its answer cells off the query path.
  telemetry_ = std::make_unique<Telemetry>(decision_log_.get());
  store_.SetOnServe([telemetry = telemetry_.get()](
                        const std::shared_ptr<const ServingState>& state) {
    telemetry->Serve(state);
  });
  store_.SetAfterServe([this] { watch_.Notify(); });
  if (!StartSource(error)) return false;
  if (config_.rrl) {
    rrl_ = std::make_unique<RateLimiter>(
        RrlOptions{.enabled = true,
                   .responses_per_second = config_.rrl_rate,
                   .nxdomains_per_second = config_.rrl_nxdomain_rate,
                   .errors_per_second = config_.rrl_error_rate,
                   .burst = config_.rrl_burst,
                   .slip = config_.rrl_slip,
                   .sample = config_.rrl_sample});
  }

  QueryContext context{&store_, geo_.get(), rrl_.get(),
                       ResponderOptions{.identity = config_.identity,
                                        .edns_udp_size = config_.edns_udp_size},
                       telemetry_.get()};
  if (!StartDns(context, error)) return false;

  // Every worker has its decision-log ring by now.
  if (decision_log_ && !decision_log_->Start(error)) return false;
  metrics_ = std::make_unique<Metrics>(MetricSources{
      .store = &store_,
      .geo = geo_.get(),
      .telemetry = telemetry_.get(),
      .udp = udp_.get(),
      .tcp = tcp_.get(),
      .decision_log = decision_log_.get(),
      .kube_source = kube_source_.get(),
      .probe = standalone_ ? standalone_->probe_metrics() : nullptr,
      .standalone = standalone_ ? standalone_->plan_metrics() : nullptr,
      .watch = &watch_});
  http_ = std::make_unique<HttpServer>(HttpSources{.store = &store_,
                                                   .geo = geo_.get(),
                                                   .metrics = metrics_.get(),
                                                   .watch = &watch_});
  HttpEndpoints endpoints{.admin_token_file = config_.admin_token_file};
  for (auto [text, slot] :
       {std::pair{&config_.http_listen, &endpoints.operating},
        std::pair{&config_.api_listen, &endpoints.api},
        std::pair{&config_.admin_listen, &endpoints.admin}}) {
    if (text->empty()) continue;
    if (!runtime::ParseEndpoint(*text, &slot->emplace(), error)) return false;
  }
  if (!http_->Start(endpoints, error)) return false;
  if (!config_.redirect_listen.empty()) {
    runtime::Endpoint at;
    if (!runtime::ParseEndpoint(config_.redirect_listen, &at, error))
      return false;
    redirector_ = std::make_unique<Redirector>(
        RedirectOptions{.listen = at, .trust_xff = config_.redirect_trust_xff},
        &store_, geo_.get(), metrics_.get());
    if (!redirector_->Start(error)) return false;
  }
  housekeeping_ = std::thread([this] { Housekeeping(); });
  return true;
}

bool Service::StartSource(std::string* error) {
  std::string source_error;
  if (!config_.snapshot_configmap_name.empty()) {
    kube_source_ = KubeSource::Create(
        KubeSourceOptions{
            .kubeconfig = config_.kubeconfig,
            .namespace_name = config_.snapshot_configmap_namespace,
            .name = config_.snapshot_configmap_name},
        &store_, error);
    if (!kube_source_) return false;
    kube_source_->Start();
  } else if (!config_.standalone_dir.empty()) {
    standalone_ = std::make_unique<StandaloneSource>(
        config_.standalone_dir, &store_,
        StandaloneOptions{
            .debounce = config_.reload_debounce,
            .rebuild_interval = config_.rebuild_interval,
            .probe = config_.probe,
            .probe_engine = {.tls = {.ca_file = config_.probe_ca,
                                     .insecure_skip_verify =
                                         config_.probe_insecure},
                             .seed = runtime::RandomSeed()},
            .token_dir = config_.probe_token_dir,
            .vantage = config_.identity,
            .probe_reports_dir = config_.probe_reports_dir,
            .snapshot_history = static_cast<size_t>(config_.snapshot_history)});
    if (!standalone_->Start(&source_error)) {
      runtime::Log(runtime::LogLevel::kError,
                   "standalone: nothing to serve yet",
                   {{"dir", config_.standalone_dir}, {"error", source_error}});
    }
  } else {
    file_source_ = std::make_unique<FileSource>(
        config_.snapshot_file, &store_,
        FileSourceOptions{.debounce = config_.reload_debounce});
    if (!file_source_->Start(&source_error)) {
      runtime::Log(runtime::LogLevel::kError,
                   "snapshot file: nothing to serve yet",
                   {{"file", config_.snapshot_file}, {"error", source_error}});
    }
  }
  return true;
}

bool Service::StartGeo(std::string* error) {
  if (config_.geo_db.empty() && config_.asn_db.empty() &&
      config_.ipdb.empty() && config_.ip2region.empty()) {
    return true;
  }
  geo_ = std::make_unique<GeoStore>(GeoStoreConfig{
      .geo_files = config_.geo_db,
      .asn_files = config_.asn_db,
      .subdivisions_file = config_.geo_subdivisions,
      .fields = config_.geo_paths,
      .copy_dir = config_.geo_copy_dir,
      .ipdb_files = config_.ipdb,
      .ip2region_files = config_.ip2region,
      .precedence = config_.geo_precedence,
      .cities = config_.geo_cities,
  });
  if (geo_->ReloadIfChanged(GeoStore::Clock::now()) ==
      GeoStore::Reload::kFailed) {
    *error = "geo databases: " + geo_->status().last_error;
    return false;
  }
  store_.SetPrepare([this](const ServingState& state) { AttachGeo(state); });
  runtime::Log(runtime::LogLevel::kInfo, "geo databases loaded",
               {{"geo", config_.geo_db},
                {"asn", config_.asn_db},
                {"ipdb", config_.ipdb},
                {"ip2region", config_.ip2region},
                {"precedence", FormatGeoPrecedence(config_.geo_precedence)},
                {"cities", config_.geo_cities},
                {"tables", GeoTableFields(*geo_->Current())}});
  return true;
}

bool Service::StartDns(const QueryContext& context, std::string* error) {
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  const UdpOptions udp_options{
      .listen = config_.listen,
      .workers = config_.workers > 0 ? config_.workers : std::max(1, cores),
      .batch = config_.udp_batch,
      .rcvbuf = config_.udp_rcvbuf,
      .max_payload = config_.edns_udp_size};
  const bool any_port =
      std::any_of(config_.listen.begin(), config_.listen.end(),
                  [](const runtime::Endpoint& e) { return e.port == 0; });
  // TCP joins the UDP ports, so port 0 gives one port for both protocols;
  // but the number UDP got may be taken for TCP: then try fresh ports.
  constexpr int kAttempts = 5;
  for (int attempt = 1;; ++attempt) {
    udp_ = std::make_unique<UdpServer>(udp_options, context);
    if (!udp_->Start(error)) return false;
    tcp_ = std::make_unique<TcpServer>(
        TcpOptions{.listen = udp_->bound(),
                   .threads = config_.tcp_threads,
                   .idle_timeout = config_.tcp_idle_timeout,
                   .message_timeout = config_.tcp_message_timeout,
                   .max_connections = config_.tcp_max_connections,
                   .max_connections_per_source =
                       config_.tcp_max_connections_per_source,
                   .max_queries_per_connection = config_.tcp_max_queries,
                   .max_buffered_bytes = config_.tcp_max_buffered},
        context);
    if (tcp_->Start(error)) return true;
    if (!any_port || attempt == kAttempts) return false;
    tcp_.reset();
    udp_->Stop();
    udp_.reset();
  }
}

void Service::AttachGeo(const ServingState& state) const {
  const std::shared_ptr<const GeoResolver> geo = geo_->Current();
  if (!geo) return;
  const auto start = std::chrono::steady_clock::now();
  // Loading, the store still serves the state before this one: its map is
  // reused when the Regions' geo criteria did not change.
  const std::shared_ptr<const ServingState> served = store_.Current();
  const ServingState::GeoAttach attached = state.AttachGeo(*geo, served.get());
  if (attached == ServingState::GeoAttach::kNone) return;
  const std::chrono::duration<double, std::milli> took =
      std::chrono::steady_clock::now() - start;
  const bool built = attached == ServingState::GeoAttach::kBuilt;
  if (built && !geo->databases().cities) {
    // Without the flag no client has a city: those criteria match nobody.
    for (const SnapshotRegion& region : state.snapshot().regions) {
      if (region.match.cities.empty()) continue;
      runtime::Log(runtime::LogLevel::kWarn,
                   "a Region matches cities but --geo-cities is off: its "
                   "cities match no client",
                   {{"region", region.name}});
    }
  }
  runtime::Log(built ? runtime::LogLevel::kInfo : runtime::LogLevel::kDebug,
               built ? "geo regions compiled" : "geo regions reused",
               {{"version", state.snapshot().version},
                {"ranges", state.geo_regions()->ranges()},
                {"ms", std::round(took.count())}});
}

nlohmann::json Service::GeoTableFields(const GeoResolver& geo) {
  if (geo.compiled() == nullptr) return nlohmann::json::object();
  const CompiledGeo::Stats stats = geo.compiled()->stats();
  return {{"ranges_v4", stats.v4_ranges},
          {"ranges_v6", stats.v6_ranges},
          {"values", stats.values},
          {"table_bytes", stats.bytes}};
}

void Service::Housekeeping() {
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, config_.geo_reload_interval,
                         [this] { return stopping_; })) {
    lock.unlock();
    // Frees the answer cells of snapshots no longer served, scraped or not.
    telemetry_->CollectAnswers();
    if (!geo_) {
      lock.lock();
      continue;
    }
    const GeoStore::Reload r = geo_->ReloadIfChanged(GeoStore::Clock::now());
    // After a geo reload or a rollback the served state may lack tables for
    // the current resolver; until attached, queries classify the slow way.
    if (const auto state = store_.Current()) AttachGeo(*state);
    if (r == GeoStore::Reload::kReloaded) {
      runtime::Log(runtime::LogLevel::kInfo, "geo databases reloaded",
                   {{"tables", GeoTableFields(*geo_->Current())}});
    } else if (r == GeoStore::Reload::kFailed) {
      runtime::Log(runtime::LogLevel::kError,
                   "geo reload failed, keeping the last good one",
                   {{"error", geo_->status().last_error}});
    }
    lock.lock();
  }
}

void Service::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (housekeeping_.joinable()) housekeeping_.join();
  if (redirector_) redirector_->Stop();
  watch_.Close();  // long polls return before their threads are joined
  if (http_) http_->Stop();
  if (tcp_) tcp_->Stop();
  if (udp_) udp_->Stop();
  if (decision_log_) decision_log_->Stop();  // after the last decision
  if (standalone_) standalone_->Stop();
  if (file_source_) file_source_->Stop();
  if (kube_source_) kube_source_->Stop();
}

}  // namespace ax::dns
