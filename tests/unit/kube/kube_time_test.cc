// metav1.Time and metav1.MicroTime text, in UTC.
#include "ax/kube/kube_time.h"

#include <gtest/gtest.h>

namespace ax::kube {
namespace {

using std::chrono::microseconds;
using std::chrono::seconds;
using std::chrono::system_clock;

TEST(KubeTimeTest, FormatsSecondsAndMicroseconds) {
  // 2024-02-29T23:59:58Z plus 123456 us.
  const system_clock::time_point t =
      system_clock::time_point(seconds(1709251198)) + microseconds(123456);
  EXPECT_EQ(FormatTime(t), "2024-02-29T23:59:58Z");
  EXPECT_EQ(FormatMicroTime(t), "2024-02-29T23:59:58.123456Z");
  EXPECT_EQ(FormatMicroTime(system_clock::time_point(seconds(0))),
            "1970-01-01T00:00:00.000000Z");
}

TEST(KubeTimeTest, TimesBeforeTheEpochRoundDown) {
  const system_clock::time_point t =
      system_clock::time_point(seconds(0)) - microseconds(1);
  EXPECT_EQ(FormatMicroTime(t), "1969-12-31T23:59:59.999999Z");
}

}  // namespace
}  // namespace ax::kube
