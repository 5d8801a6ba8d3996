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
  for (const std::string& path : config_.geo_files) {
    if (!add(path)) return false;
  }
  for (const std::string& path : config_.asn_files) {
    if (!add(path)) return false;
  }
  return config_.subdivisions_file.empty() || add(config_.subdivisions_file);
}

std::shared_ptr<const MmdbFile> GeoStore::OpenFile(const std::string& path,
                                                   const FileIds& ids,
                                                   std::string& error) {
  auto open = open_files_.find(path);
  auto loaded = loaded_ids_.find(path);
  if (open != open_files_.end() && loaded != loaded_ids_.end() &&
      loaded->second == ids.at(path)) {
    return open->second;
  }
  return MmdbFile::Open(path, &error, config_.copy_dir);
}

std::shared_ptr<const GeoResolver> GeoStore::Build(const FileIds& ids,
                                                   std::string& error) {
  GeoDatabases dbs;
  std::map<std::string, std::shared_ptr<const MmdbFile>> files;
  for (const auto* list : {&config_.geo_files, &config_.asn_files}) {
    for (const std::string& path : *list) {
      std::shared_ptr<const MmdbFile> file = OpenFile(path, ids, error);
      if (!file) return nullptr;
      files[path] = file;
      (list == &config_.geo_files ? dbs.geo : dbs.asn).push_back(file);
    }
  }
  if (!config_.subdivisions_file.empty()) {
    dbs.subdivisions =
        SubdivisionTable::LoadWithOverrides(config_.subdivisions_file, &error);
    if (!dbs.subdivisions) return nullptr;
  }
  std::shared_ptr<const GeoResolver> resolver =
      GeoResolver::Create(std::move(dbs), config_.fields, config_.mode, &error);
  // Only a good set may be reused: OpenFile trusts open_files_.
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
