// FileSource: what every GeoSource over one file shares — the file and its
// path, a lookup that reads the record the file holds for an address, and a
// walk that decodes records only when asked and drops the file's pages after
// (queries touch few of them again). `Derived` provides
// `bool Read(const Record&, GeoFacts&) const` (false: the record does not
// decode). The file formats and their fields are the derived sources'.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "geo/geo_source.h"

namespace ax::dns {

template <typename Derived, typename File, typename Record>
class FileSource : public GeoSource {
 public:
  explicit FileSource(std::shared_ptr<const File> file)
      : file_(std::move(file)) {}

  const std::string& path() const override { return file_->path(); }

  bool Lookup(const IpAddress& ip, GeoFacts& facts, bool& found,
              int& prefix_length) const override {
    Record record;
    if (!file_->Lookup(ip, record)) return false;
    prefix_length = std::max(prefix_length, record.prefix_length);
    found = record.found;
    return !found || self().Read(record, facts);
  }

 protected:
  const File& file() const { return *file_; }

  // Runs `walk`, the file's own walk, which reports each range with its
  // record through the callable it is given; `visit` sees the range and a
  // Decode that reads that record.
  template <typename FileWalk>
  bool WalkWith(const Visit& visit, std::string* error, FileWalk walk) const {
    struct Release {
      const File& file;
      ~Release() { file.ReleasePages(); }
    } release{*file_};
    const Record* current = nullptr;
    uint64_t current_id = 0;
    const Decode decode = [&](GeoFacts& facts) {
      if (self().Read(*current, facts)) return true;
      if (error != nullptr) {
        *error = "geo database " + path() + ": record at data offset " +
                 std::to_string(current_id) + " does not decode";
      }
      return false;
    };
    return walk([&](const GeoSourceRange& range, const Record& record) {
      current = &record;
      current_id = range.record;
      return visit(range, decode);
    });
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }

  std::shared_ptr<const File> file_;
};

// The range a tree walk's network (MmdbNetwork, IpdbNetwork) stands for;
// `id` names its record.
template <typename Network>
GeoSourceRange NetworkRange(const Network& network, uint64_t id) {
  GeoSourceRange range{.key = network.key};
  if (network.deeper) {
    range.state = GeoSourceRange::State::kDeeper;
  } else if (network.record.found) {
    range.state = GeoSourceRange::State::kRecord;
    range.record = id;
  }
  return range;
}

}  // namespace ax::dns
