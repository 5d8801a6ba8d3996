// Test support for the standalone suites: a copy of examples/quickstart in a
// temporary directory that a test edits, a StandaloneSource on it, the store
// it serves into, and what that store serves.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "server/snapshot_store.h"
#include "server/standalone.h"
#include "server_test_support.h"

namespace ax::dns::testing {

class StandaloneDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::copy(QuickstartDir(), dir_.path(),
                          std::filesystem::copy_options::recursive);
  }

  // Replaces the first `from` in `file` with `to`, for each pair in order,
  // and renames the result over the file: one change for the watcher.
  using Replacements =
      std::initializer_list<std::pair<std::string_view, std::string_view>>;
  void Edit(const std::string& file, Replacements replacements) {
    std::string text = ReadFile(dir_ / file);
    for (const auto& [from, to] : replacements) {
      const size_t at = text.find(from);
      ASSERT_NE(at, std::string::npos) << file << ": " << from;
      text.replace(at, from.size(), to);
    }
    WriteFileAtomically(dir_ / file, text);
  }

  // The served Domain named `name`; nullopt when none is served or not it.
  std::optional<SnapshotDomain> Served(std::string_view name) const {
    const auto state = store_.Current();
    if (!state) return std::nullopt;
    const std::vector<SnapshotDomain>& domains = state->snapshot().domains;
    const auto it = std::find_if(domains.begin(), domains.end(),
                                 [&](const auto& d) { return d.name == name; });
    if (it == domains.end()) return std::nullopt;
    return *it;
  }

  // A source on the copy, started: serving, or the test fails. It stops
  // when it goes.
  std::unique_ptr<StandaloneSource> StartSource(StandaloneOptions options) {
    auto source = std::make_unique<StandaloneSource>(dir_.path(), &store_,
                                                     std::move(options));
    std::string error;
    EXPECT_TRUE(source->Start(&error)) << error;
    return source;
  }

  uint64_t Version() const {
    const auto state = store_.Current();
    return state ? state->snapshot().version : 0;
  }

  TempDir dir_;
  SnapshotStore store_{{}};
};

}  // namespace ax::dns::testing
