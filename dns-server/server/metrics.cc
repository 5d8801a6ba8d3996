// The data-plane collector: sums per-worker cells and reads component
// statistics when scraped; nothing here runs on the query path.
#include "server/metrics.h"

#include <prometheus/collectable.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <mutex>

#include "ax/runtime/clock.h"
#include "ax/runtime/metric_family.h"

namespace ax::dns {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = runtime::MetricLabels;
using runtime::Family;

// Sums one cell over every worker.
template <typename Get>
uint64_t Sum(const std::vector<const QueryCounters*>& workers, Get get) {
  uint64_t n = 0;
  for (const QueryCounters* w : workers) n += get(*w).Get();
  return n;
}

double SecondsSince(int64_t then_ms, int64_t now_ms) {
  return static_cast<double>(now_ms - then_ms) / 1000.0;
}

}  // namespace

class Metrics::DataPlane : public prometheus::Collectable {
 public:
  explicit DataPlane(MetricSources sources) : s_(sources) {}

  std::vector<MetricFamily> Collect() const override {
    std::lock_guard lock(mu_);  // one scrape at a time folds answer cells
    std::vector<MetricFamily> out;
    Queries(out);
    Answers(out);
    Snapshot(out);
    VantageGroups(out);
    SnapshotSource(out);
    Geo(out);
    Sockets(out);
    DecisionLogStats(out);
    EndpointWatches(out);
    return out;
  }

 private:
  void Queries(std::vector<MetricFamily>& out) const {
    const auto workers = s_.telemetry->Counters();
    auto queries = Family("ax_dns_queries_total",
                          "DNS responses sent, by protocol, QTYPE and RCODE",
                          MetricType::Counter);
    auto malformed =
        Family("ax_dns_queries_malformed_total",
               "queries not answered: unparseable header or a response packet",
               MetricType::Counter);
    auto truncated =
        Family("ax_dns_responses_truncated_total",
               "responses sent with TC=1 (too large, or an RRL slip)",
               MetricType::Counter);
    auto ecs = Family("ax_dns_ecs_queries_total",
                      "queries carrying a valid EDNS Client Subnet option",
                      MetricType::Counter);
    auto duration =
        Family("ax_dns_request_duration_seconds",
               "responder time per query (classify, pick, write; not parsing), "
               "sampled 1 query in 64",
               MetricType::Histogram);
    for (size_t p = 0; p < kProtocols; ++p) {
      const std::string protocol(ProtocolLabel(p));
      for (size_t t = 0; t < kQtypeLabels; ++t) {
        for (size_t r = 0; r < kRcodeLabels; ++r) {
          const uint64_t n = Sum(
              workers, [&](const QueryCounters& c) -> auto& {
                return c.queries[p][t][r];
              });
          if (n == 0) continue;
          runtime::AddSample(queries, static_cast<double>(n),
                             {{"protocol", protocol},
                              {"qtype", std::string(QtypeLabel(t))},
                              {"rcode", std::string(RcodeLabel(r))}});
        }
      }
      const Labels labels = {{"protocol", protocol}};
      runtime::AddSample(
          malformed,
          Sum(
              workers, [&](auto& c) -> auto& { return c.malformed[p]; }),
          labels);
      runtime::AddSample(
          truncated,
          Sum(
              workers, [&](auto& c) -> auto& { return c.truncated[p]; }),
          labels);
      runtime::AddSample(
          ecs,
          Sum(
              workers, [&](auto& c) -> auto& { return c.ecs[p]; }),
          labels);
    }
    // One histogram: the timed responder call does not depend on transport.
    ClientMetric h;
    uint64_t cumulative = 0;
    for (size_t b = 0; b <= kDurationBounds.size(); ++b) {
      cumulative += Sum(
          workers, [&](auto& c) -> auto& { return c.duration_buckets[b]; });
      h.histogram.bucket.push_back(
          {cumulative, b < kDurationBounds.size()
                           ? kDurationBounds[b]
                           : std::numeric_limits<double>::infinity()});
    }
    h.histogram.sample_count = cumulative;
    h.histogram.sample_sum =
        static_cast<double>(Sum(
            workers, [](auto& c) -> auto& { return c.duration_sum_ns; })) *
        1e-9;
    duration.metric.push_back(std::move(h));

    auto rrl = Family("ax_dns_rrl_limited_total",
                      "responses limited by response rate limiting, by action",
                      MetricType::Counter);
    runtime::AddSample(
        rrl,
        Sum(
            workers, [](auto& c) -> auto& { return c.rrl_drops; }),
        {{"action", "drop"}});
    runtime::AddSample(
        rrl,
        Sum(
            workers, [](auto& c) -> auto& { return c.rrl_slips; }),
        {{"action", "slip"}});
    auto geo_failed =
        Family("ax_dns_geo_lookup_failures_total",
               "geo or ASN database lookups that errored", MetricType::Counter);
    runtime::AddSample(geo_failed, Sum(
                                       workers, [](auto& c) -> auto& {
                                         return c.geo_failures;
                                       }));
    for (auto* f : {&queries, &malformed, &truncated, &ecs, &duration, &rrl,
                    &geo_failed}) {
      out.push_back(std::move(*f));
    }
  }

  void Answers(std::vector<MetricFamily>& out) const {
    const AnswerSeries series = s_.telemetry->CollectAnswers();
    auto answers = Family(
        "ax_dns_answers_total",
        "GSLB decisions by domain, client region (\"\" unclassified) and the "
        "route's source (Region, FallbackRegion, IspHealthy, AllHealthy, "
        "DomainFallback, FailOpen)",
        MetricType::Counter);
    auto fallback = Family(
        "ax_dns_fallback_answers_total",
        "GSLB decisions not served by the client's own region, by domain and "
        "route source",
        MetricType::Counter);
    auto spilled = Family(
        "ax_dns_spillover_answers_total",
        "GSLB decisions of a region past its load knee answered from its "
        "fallback region instead (spill-over), by domain and region",
        MetricType::Counter);
    for (const auto& [key, n] : series.spilled) {
      runtime::AddSample(spilled, static_cast<double>(n),
                         {{"domain", key.first}, {"region", key.second}});
    }
    auto nodes = Family("ax_dns_node_answers_total",
                        "GSLB answers that included the node, by domain",
                        MetricType::Counter);
    std::map<std::pair<std::string, std::string>, uint64_t> by_source;
    for (const auto& [key, n] : series.by_region) {
      const auto& [domain, region, source] = key;
      runtime::AddSample(
          answers, static_cast<double>(n),
          {{"domain", domain}, {"region", region}, {"source", source}});
      // Anycast is the Default policy's own answer, not a fallback.
      if (source != RouteSourceName(RouteSource::kRegion) &&
          source != RouteSourceName(RouteSource::kAnycast)) {
        by_source[{domain, source}] += n;
      }
    }
    for (const auto& [key, n] : by_source) {
      runtime::AddSample(fallback, static_cast<double>(n),
                         {{"domain", key.first}, {"source", key.second}});
    }
    for (const auto& [key, n] : series.by_node) {
      runtime::AddSample(nodes, static_cast<double>(n),
                         {{"domain", key.first}, {"node", key.second}});
    }
    out.push_back(std::move(answers));
    out.push_back(std::move(fallback));
    out.push_back(std::move(spilled));
    out.push_back(std::move(nodes));
  }

  void Snapshot(std::vector<MetricFamily>& out) const {
    const StoreStatus st = s_.store->Status();
    const int64_t now = runtime::WallMs();
    auto loaded =
        Family("ax_dns_snapshot_loaded",
               "1 once a snapshot is served (readiness)", MetricType::Gauge);
    runtime::AddSample(loaded, st.current ? 1 : 0);
    out.push_back(std::move(loaded));
    if (st.current) {
      auto version =
          Family("ax_dns_snapshot_version", "version of the served snapshot",
                 MetricType::Gauge);
      runtime::AddSample(version, static_cast<double>(st.current->version));
      auto age = Family("ax_dns_snapshot_age_seconds",
                        "seconds since the served snapshot was loaded",
                        MetricType::Gauge);
      runtime::AddSample(age, SecondsSince(st.current->loaded_at_ms, now));
      auto generated = Family(
          "ax_dns_snapshot_generated_age_seconds",
          "seconds since the served snapshot was generated (control-plane lag)",
          MetricType::Gauge);
      runtime::AddSample(generated,
                         SecondsSince(st.current->generated_at_ms, now));
      auto rolled = Family("ax_dns_snapshot_rolled_back",
                           "1 while a rollback chose the served snapshot",
                           MetricType::Gauge);
      runtime::AddSample(rolled, st.rolled_back ? 1 : 0);
      for (auto* f : {&version, &age, &generated, &rolled}) {
        out.push_back(std::move(*f));
      }
    }
    auto loads = Family("ax_dns_snapshot_loads_total",
                        "snapshots loaded and swapped in", MetricType::Counter);
    runtime::AddSample(loads, static_cast<double>(st.loads));
    auto errors = Family("ax_dns_snapshot_load_errors_total",
                         "snapshot loads refused (the last good one kept)",
                         MetricType::Counter);
    runtime::AddSample(errors, static_cast<double>(st.errors));
    out.push_back(std::move(loads));
    out.push_back(std::move(errors));
  }

  // The served snapshot's vantage groups (issue 14), as this pod answers with
  // them: standalone too, where no operator exports them.
  void VantageGroups(std::vector<MetricFamily>& out) const {
    const std::shared_ptr<const ServingState> state = s_.store->Current();
    if (!state) return;
    const ax::Snapshot& snap = state->snapshot();
    auto vantages = Family(
        "ax_dns_vantage_group_vantages",
        "per vantage group of the served snapshot: its fresh, trusted "
        "vantages (0: its Regions are answered with the global verdicts)",
        MetricType::Gauge);
    for (const SnapshotVantageGroup& g : snap.vantage_groups) {
      runtime::AddSample(vantages, static_cast<double>(g.vantages),
                         {{"group", g.name}});
    }
    auto down =
        Family("ax_dns_vantage_group_node_down",
               "1 per node a vantage group of the served snapshot sees Down, "
               "labelled with the node's global health",
               MetricType::Gauge);
    for (const auto& [key, global] : NodesDownByGroup(snap)) {
      runtime::AddSample(down, 1,
                         {{"group", key.first},
                          {"node", key.second},
                          {"global", HealthName(global)}});
    }
    out.push_back(std::move(vantages));
    out.push_back(std::move(down));
  }

  // The API source's link to the apiserver (--snapshot-configmap only).
  void SnapshotSource(std::vector<MetricFamily>& out) const {
    if (!s_.kube_source) return;
    for (MetricFamily& f : kube::ApiWatchFamilies("ax_dns_snapshot_source",
                                                  "the route-table ConfigMap",
                                                  s_.kube_source->status())) {
      out.push_back(std::move(f));
    }
    if (const int64_t confirmed = s_.kube_source->confirmed_at_ms()) {
      auto age = Family(
          "ax_dns_snapshot_confirmed_age_seconds",
          "member cluster: seconds since the control plane last confirmed "
          "the route table current (grows while cut off from it)",
          MetricType::Gauge);
      runtime::AddSample(age, SecondsSince(confirmed, runtime::WallMs()));
      out.push_back(std::move(age));
    }
  }

  void Geo(std::vector<MetricFamily>& out) const {
    if (!s_.geo) return;
    const GeoStore::Status st = s_.geo->status();
    auto reloads = Family("ax_dns_geo_reloads_total",
                          "geo database sets loaded, the first included",
                          MetricType::Counter);
    runtime::AddSample(reloads, static_cast<double>(st.reloads));
    auto failures = Family("ax_dns_geo_reload_errors_total",
                           "geo database sets rejected (the last good kept)",
                           MetricType::Counter);
    runtime::AddSample(failures, static_cast<double>(st.failures));
    out.push_back(std::move(reloads));
    out.push_back(std::move(failures));
    if (st.last_success) {
      auto loaded = Family("ax_dns_geo_load_age_seconds",
                           "seconds since the geo databases were last loaded",
                           MetricType::Gauge);
      runtime::AddSample(loaded, std::chrono::duration<double>(
                                     GeoStore::Clock::now() - *st.last_success)
                                     .count());
      out.push_back(std::move(loaded));
    }
    const auto resolver = s_.geo->Current();
    if (!resolver) return;
    auto age = Family("ax_dns_geo_database_age_seconds",
                      "seconds since each database file was built (MMDB and "
                      "ipdb build_epoch; ip2region files carry none), by "
                      "file and kind (geo, asn, ipdb)",
                      MetricType::Gauge);
    const double now = static_cast<double>(runtime::WallMs()) / 1000.0;
    auto add = [&](const std::string& path, int64_t built, const char* kind) {
      runtime::AddSample(
          age, now - static_cast<double>(built),
          {{"database", std::filesystem::path(path).filename().string()},
           {"kind", kind}});
    };
    const GeoDatabases& dbs = resolver->databases();
    for (const auto& file : dbs.geo)
      add(file->path(), file->build_epoch(), "geo");
    for (const auto& file : dbs.asn)
      add(file->path(), file->build_epoch(), "asn");
    for (const auto& file : dbs.ipdb) {
      add(file->path(), file->build_epoch(), "ipdb");
    }
    out.push_back(std::move(age));
  }

  void Sockets(std::vector<MetricFamily>& out) const {
    if (s_.udp) {
      const UdpStats u = s_.udp->stats();
      auto received = Family("ax_dns_udp_received_total", "UDP datagrams read",
                             MetricType::Counter);
      runtime::AddSample(received, static_cast<double>(u.received));
      auto kernel =
          Family("ax_dns_udp_kernel_drops_total",
                 "UDP datagrams the kernel dropped before ax-dns read them "
                 "(SO_RXQ_OVFL: receive buffer full)",
                 MetricType::Counter);
      runtime::AddSample(kernel, static_cast<double>(u.kernel_drops));
      auto send_errors =
          Family("ax_dns_udp_send_errors_total",
                 "UDP answers the kernel did not take", MetricType::Counter);
      runtime::AddSample(send_errors, static_cast<double>(u.send_errors));
      for (auto* f : {&received, &kernel, &send_errors}) {
        out.push_back(std::move(*f));
      }
    }
    if (s_.tcp) {
      const TcpStats t = s_.tcp->stats();
      auto connections = Family(
          "ax_dns_tcp_connections_total",
          "TCP connections by result (accepted; rejected: at the limit with "
          "none idle to evict; rejected_source: its source at its limit)",
          MetricType::Counter);
      for (const auto& [result, n] :
           {std::pair{"accepted", t.accepted},
            std::pair{"rejected", t.rejected},
            std::pair{"rejected_source", t.rejected_source}}) {
        runtime::AddSample(connections, static_cast<double>(n),
                           {{"result", result}});
      }
      auto closed = Family(
          "ax_dns_tcp_connections_closed_total",
          "TCP connections closed by the server, by reason (idle; slow: a "
          "message took too long; evicted: the idlest, for a newcomer; "
          "budget: its queries answered; buffered: held the most when all "
          "held too much)",
          MetricType::Counter);
      for (const auto& [reason, n] :
           {std::pair{"idle", t.closed_idle}, std::pair{"slow", t.closed_slow},
            std::pair{"evicted", t.closed_evicted},
            std::pair{"budget", t.closed_budget},
            std::pair{"buffered", t.closed_buffered}}) {
        runtime::AddSample(closed, static_cast<double>(n),
                           {{"reason", reason}});
      }
      auto open = Family("ax_dns_tcp_connections_open",
                         "TCP connections open now", MetricType::Gauge);
      runtime::AddSample(open, t.open);
      auto buffered =
          Family("ax_dns_tcp_buffered_bytes",
                 "input and unsent answers held for all TCP connections",
                 MetricType::Gauge);
      runtime::AddSample(buffered, static_cast<double>(t.buffered_bytes));
      for (auto* f : {&connections, &closed, &open, &buffered}) {
        out.push_back(std::move(*f));
      }
    }
  }

  void DecisionLogStats(std::vector<MetricFamily>& out) const {
    if (!s_.decision_log) return;
    auto records = Family(
        "ax_dns_decision_log_records_total",
        "sampled decisions by outcome (written, dropped: a worker's buffer "
        "was full, error: the write failed)",
        MetricType::Counter);
    runtime::AddSample(records, static_cast<double>(s_.decision_log->written()),
                       {{"outcome", "written"}});
    runtime::AddSample(records, static_cast<double>(s_.decision_log->dropped()),
                       {{"outcome", "dropped"}});
    runtime::AddSample(records,
                       static_cast<double>(s_.decision_log->write_errors()),
                       {{"outcome", "error"}});
    out.push_back(std::move(records));
  }

  // GET /v1/endpoints?wait=: how many wait now, how many were told to come
  // back (the cap, http_server.h).
  void EndpointWatches(std::vector<MetricFamily>& out) const {
    if (!s_.watch) return;
    auto waiting = Family("ax_dns_endpoint_watches",
                          "endpoints long polls waiting for a new route table",
                          MetricType::Gauge);
    runtime::AddSample(waiting, static_cast<double>(s_.watch->waiters()));
    auto refused =
        Family("ax_dns_endpoint_watches_refused_total",
               "endpoints long polls refused (503) because the cap was reached",
               MetricType::Counter);
    runtime::AddSample(refused, static_cast<double>(s_.watch->refused()));
    out.push_back(std::move(waiting));
    out.push_back(std::move(refused));
  }

  const MetricSources s_;
  mutable std::mutex mu_;
};

Metrics::Metrics(MetricSources sources)
    : registry_(std::make_shared<prometheus::Registry>()),
      redirects_(&prometheus::BuildCounter()
                      .Name("ax_dns_redirects_total")
                      .Help("HTTP redirector responses by status code (302 "
                            "redirected, 404 unknown host, 503 nothing can "
                            "serve)")
                      .Register(*registry_)),
      data_plane_(std::make_unique<DataPlane>(sources)),
      probe_(sources.probe),
      standalone_(sources.standalone) {}

Metrics::~Metrics() = default;

prometheus::Counter& Metrics::Redirect(int status) {
  return redirects_->Add({{"code", std::to_string(status)}});
}

std::vector<MetricFamily> Metrics::Collect() const {
  std::vector<MetricFamily> out = registry_->Collect();
  for (const prometheus::Collectable* part :
       {static_cast<const prometheus::Collectable*>(data_plane_.get()), probe_,
        standalone_}) {
    if (part == nullptr) continue;
    std::vector<MetricFamily> data = part->Collect();
    std::move(data.begin(), data.end(), std::back_inserter(out));
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

}  // namespace ax::dns
