// SPDX-License-Identifier: MIT
// One of the processes test_disk_cache starts together on one cache folder (PARLOOP_CACHE_DIR):
// runs three loops on the device PARLOOP_TEST_BACKEND names (OpenCL by default), checks their
// results, and prints how many kernels it compiled and how many it loaded from the disk cache.
// Exit status: 0 when every result is right, 1 otherwise, 77 without a device.
#include <cstdio>
#include <vector>

#include <parloop/parloop.hpp>

#include "device_under_test.hpp"

namespace pl = parloop;

int main() {
  try {
    if (!pl::detail::status_of(parloop_test::device_backend()).available) return 77;
    const pl::Runtime rt = parloop_test::device_runtime();
    const int n = 4099;
    const pl::Set points(rt, n);
    pl::Dat<double> a(points), b(points, std::vector<double>(n, 1.5));
    pl::Dat<std::int32_t> count(points);
    pl::Global<double> total(rt, 0.0);
    const auto scale = pl::kernel("child_scale", [](auto a, auto b) { a = b * 4.0; });
    const auto tally = pl::kernel("child_tally", [](auto c) { c += 2; });
    const auto sum = pl::kernel("child_sum", [](auto a, auto t) { t += a; });
    pl::par_loop(scale, points, a(pl::WRITE), b(pl::READ));
    pl::par_loop(tally, points, count(pl::INC));
    pl::par_loop(sum, points, a(pl::READ), total(pl::INC));
    bool right = total.value() == 6.0 * n;
    for (const double v : a.host()) right = right && v == 6.0;
    for (const std::int32_t c : count.host()) right = right && c == 2;
    const auto compiled = scale.cache().compiles() + tally.cache().compiles() + sum.cache().compiles();
    const auto loaded = scale.cache().disk_hits() + tally.cache().disk_hits() + sum.cache().disk_hits();
    std::printf("compiled=%llu disk_hits=%llu right=%d\n", static_cast<unsigned long long>(compiled),
                static_cast<unsigned long long>(loaded), right ? 1 : 0);
    return right ? 0 : 1;
  } catch (const pl::error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
