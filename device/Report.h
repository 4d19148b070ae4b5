// The judge's reports (docs/device.md, "Reports"): device.json (everything, for tools),
// device.md (a summary and every failure, for a pull request or a terminal), junit.xml (one test
// per sub-case, for CI) and device.html — static and self-contained (inline CSS, no script, no
// external asset, so it opens from a file with no network) with per-op and per-dtype histograms of
// |y - v| / (e + tiny), so a person sees at a glance how close the device ran to its bounds and
// where it failed.
#pragma once

#include <filesystem>
#include <string>

#include "device/Judge.h"

namespace ptodiff::device {

std::string deviceJson(const DeviceReport& r);
std::string deviceMarkdown(const DeviceReport& r);
std::string deviceJunit(const DeviceReport& r);
std::string deviceHtml(const DeviceReport& r);

/// Writes the four files into `dir` (created when missing).
void writeDeviceReports(const DeviceReport& r, const std::filesystem::path& dir);

}  // namespace ptodiff::device
