// Timestamps as the Kubernetes API writes them, always in UTC: metav1.Time
// ("2006-01-02T15:04:05Z", whole seconds: Events) and metav1.MicroTime
// ("2006-01-02T15:04:05.000000Z": Lease acquire/renew times). Formatting only:
// nothing in ax_kube judges time by what the server wrote.
#pragma once

#include <chrono>
#include <string>

namespace ax::kube {

std::string FormatTime(std::chrono::system_clock::time_point time);
std::string FormatMicroTime(std::chrono::system_clock::time_point time);

}  // namespace ax::kube
