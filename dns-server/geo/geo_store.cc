// GeoStore: stat, compare, build off to the side, swap.
#include "geo/geo_store.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace ax::dns {

GeoStore::GeoStore(GeoStoreConfig config) : config_(std::move(config)) {}

bool GeoStore::Identify(FileIds& ids, std::string& error) const {
  auto add = [&](const std::string& path) {
    struct stat st {};
    // stat, not lstat: a ConfigMap volume swaps a symlink's target.
    if (::stat(path.c_str(), &st) != 0) {
      error = "geo database " + path + ": " + std::strerror(errno);
      return false;
    }
    ids[path] =
        FileId{st.st_dev, st.st_ino, st.st_size,
               int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec};
    return true;
  };
  for (const auto* list : {&config_.geo_files, &config_.asn_files,
                           &config_.ipdb_files, &config_.ip2region_files}) {
    for (const std::string& path : *list) {
      if (!add(path)) return false;
    }
  }
  return config_.subdivisions_file.empty() || add(config_.subdivisions_file);
}

template <typename File, typename Open>
bool GeoStore::OpenAll(const std::vector<std::string>& paths,
                       const FileIds& ids, Open open, OpenFiles& files,
                       std::vector<std::shared_ptr<const File>>& out,
                       std::string& error) const {
  for (const std::string& path : paths) {
    // Reusing a path listed under two formats would read it as the wrong one.
    if (files.count(path) != 0) {
      error = "geo database " + path + ": listed twice";
      return false;
    }
    std::shared_ptr<const File> file;
    auto reused = open_files_.find(path);
    auto loaded = loaded_ids_.find(path);
    if (reused != open_files_.end() && loaded != loaded_ids_.end() &&
        loaded->second == ids.at(path)) {
      file = std::static_pointer_cast<const File>(reused->second);
    } else {
      file = open(path, &error, config_.copy_dir);
      if (!file) return false;
    }
    files[path] = file;
    out.push_back(std::move(file));
  }
  return true;
}

std::shared_ptr<const GeoResolver> GeoStore::Build(const FileIds& ids,
                                                   std::string& error) {
  GeoDatabases dbs;
  dbs.precedence = config_.precedence;
  dbs.cities = config_.cities;
  OpenFiles files;
  auto open_mmdb = [](const std::string& path, std::string* e,
                      const std::string& copy_dir) {
    return MmdbFile::Open(path, e, copy_dir);
  };
  auto open_ipdb = [](const std::string& path, std::string* e,
                      const std::string& copy_dir) {
    return IpdbFile::Open(path, e, "CN", copy_dir);
  };
  if (!OpenAll(config_.geo_files, ids, open_mmdb, files, dbs.geo, error) ||
      !OpenAll(config_.asn_files, ids, open_mmdb, files, dbs.asn, error) ||
      !OpenAll(config_.ipdb_files, ids, open_ipdb, files, dbs.ipdb, error) ||
      !OpenAll(config_.ip2region_files, ids, Ip2RegionFile::Open, files,
               dbs.ip2region, error)) {
    return nullptr;
  }
  if (!config_.subdivisions_file.empty()) {
    dbs.subdivisions =
        SubdivisionTable::LoadWithOverrides(config_.subdivisions_file, &error);
    if (!dbs.subdivisions) return nullptr;
  }
  std::shared_ptr<const GeoResolver> resolver =
      GeoResolver::Create(std::move(dbs), config_.fields, config_.mode, &error);
  // Only a good set may be reused: OpenAll trusts open_files_.
  if (resolver) open_files_ = std::move(files);
  return resolver;
}

GeoStore::Reload GeoStore::ReloadIfChanged(Clock::time_point now) {
  std::lock_guard lock(mu_);
  FileIds ids;
  std::string error;
  if (!Identify(ids, error)) return Fail(std::move(ids), std::move(error));
  if (current_.load(std::memory_order_relaxed) && ids == loaded_ids_) {
    // Also after a failed set was replaced by the loaded one again.
    failed_ids_.reset();
    status_.last_error.clear();
    return Reload::kUnchanged;
  }
  if (failed_ids_ == ids) return Reload::kFailed;
  std::shared_ptr<const GeoResolver> next = Build(ids, error);
  if (!next) return Fail(std::move(ids), std::move(error));
  current_.store(std::move(next), std::memory_order_release);
  loads_.fetch_add(1, std::memory_order_release);
  loaded_ids_ = std::move(ids);
  failed_ids_.reset();
  ++status_.reloads;
  status_.last_success = now;
  status_.last_error.clear();
  return Reload::kReloaded;
}

GeoStore::Reload GeoStore::Fail(FileIds ids, std::string error) {
  // A missing file leaves a partial id set: the same error on the same set is
  // the same failure.
  if (failed_ids_ != ids || status_.last_error != error) {
    ++status_.failures;
    failed_ids_ = std::move(ids);
    status_.last_error = std::move(error);
  }
  return Reload::kFailed;
}

GeoStore::Status GeoStore::status() const {
  std::lock_guard lock(mu_);
  return status_;
}

}  // namespace ax::dns
