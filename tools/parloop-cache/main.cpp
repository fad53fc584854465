// SPDX-License-Identifier: MIT
// parloop-cache: looks after the per-user disk cache of compiled kernels (the folder that
// PARLOOP_CACHE_DIR, XDG_CACHE_HOME or HOME gives, as for programs). It touches only what parloop
// wrote there; any failure is one line on standard error and exit status 1.
//   parloop-cache stats             entries, bytes, the folder and its cap
//   parloop-cache list              one line per entry: kernel, backend, device, size, last use
//   parloop-cache verify            checks every entry; exit status 1 if one is bad
//   parloop-cache verify --rebuild  and compiles each again from its stored source where its
//                                   compiler is here: exit status 1 if a binary is not its
//                                   source's
//   parloop-cache prune MB          removes the least recently used entries down to MB MiB
//   parloop-cache clear             removes every entry; refuses a folder holding anything else
//   parloop-cache export FILE       writes every good entry into FILE
//   parloop-cache import FILE       checks and stores the entries of FILE; exit status 1 if one
//                                   was refused or not read
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <exception>
#include <string>
#include <string_view>

#include <parloop/backend/rebuild.hpp>
#include <parloop/cache/disk_cache.hpp>
#include <parloop/cache/disk_maintenance.hpp>

namespace pc = parloop::cache;

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: parloop-cache stats | list | verify [--rebuild] | prune MB | clear | export FILE | import FILE\n"
               "  the cache folder: $PARLOOP_CACHE_DIR, else $XDG_CACHE_HOME/parloop, else ~/.cache/parloop\n");
  return 2;
}

std::string when(std::filesystem::file_time_type t) {
  const auto system = std::chrono::time_point_cast<std::chrono::seconds>(
      t - std::filesystem::file_time_type::clock::now() + std::chrono::system_clock::now());
  const std::time_t seconds = std::chrono::system_clock::to_time_t(system);
  std::tm local{};
  localtime_r(&seconds, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &local);
  return text;
}

int run(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string_view command = argv[1];
  const bool takes_argument = command == "prune" || command == "export" || command == "import";
  const bool rebuild = command == "verify" && argc == 3 && std::string_view(argv[2]) == "--rebuild";
  if (argc != (takes_argument || rebuild ? 3 : 2)) return usage();
  const auto disk = pc::disk_cache::open(parloop::settings::from_environment());
  if (disk == nullptr) {
    std::fprintf(stderr, "parloop-cache: no usable cache folder (PARLOOP_CACHE=off, or one parloop refuses)\n");
    return 1;
  }
  if (command == "stats") {
    const auto u = pc::measure(*disk);
    std::printf("%s: %llu entries, %.1f MiB of %.0f MiB%s\n", disk->dir().c_str(),
                static_cast<unsigned long long>(u.entries), static_cast<double>(u.bytes) / (1 << 20),
                static_cast<double>(disk->max_bytes()) / (1 << 20),
                disk->mode() == pc::disk_mode::read_only ? " (read-only)" : "");
    return 0;
  }
  if (command == "list" || command == "verify") {
    int bad = 0;
    // Entries by what rebuilding them found (rebuild_outcome's order).
    int rebuilt[4] = {};
    for (const auto& e : pc::entries(*disk)) {
      std::string verdict = e.problem.empty() ? "" : "  BAD: " + e.problem;
      if (rebuild && e.problem.empty()) {
        const pc::rebuild_verdict v = parloop::backend::check_rebuild(e.path);
        ++rebuilt[static_cast<int>(v.outcome)];
        static constexpr const char* said[] = {"  same: ", "  DIFFERS: ", "  not compared: ", "  not rebuilt: "};
        verdict = said[static_cast<int>(v.outcome)] + v.why;
      }
      if (command == "verify" && !rebuild && e.problem.empty()) continue;
      bad += e.problem.empty() ? 0 : 1;
      std::printf("%-40s %-7s %-40s %9llu  %s%s\n", e.kernel.empty() ? "?" : e.kernel.c_str(),
                  e.backend.empty() ? "?" : e.backend.c_str(), e.device.empty() ? "?" : e.device.c_str(),
                  static_cast<unsigned long long>(e.bytes), when(e.used).c_str(), verdict.c_str());
    }
    if (command == "verify") std::printf("%d bad entr%s\n", bad, bad == 1 ? "y" : "ies");
    if (rebuild) {
      std::printf("rebuilt from their sources: %d same, %d differ, %d not compared, %d not rebuilt here\n", rebuilt[0],
                  rebuilt[1], rebuilt[2], rebuilt[3]);
    }
    return command == "verify" && bad + rebuilt[static_cast<int>(pc::rebuild_outcome::differs)] > 0 ? 1 : 0;
  }
  if (command == "prune") {
    const std::uint64_t max = parloop::detail::mebibytes("prune MB", argv[2], 0);
    std::printf("removed %llu entries\n", static_cast<unsigned long long>(disk->prune(max)));
    return 0;
  }
  if (command == "clear") {
    const std::uint64_t removed = pc::clear(*disk);
    std::printf("cleared %s: removed %llu entries\n", disk->dir().c_str(), static_cast<unsigned long long>(removed));
    return 0;
  }
  if (command == "export") {
    std::printf("exported %llu entries to %s\n", static_cast<unsigned long long>(pc::export_to(*disk, argv[2])),
                argv[2]);
    return 0;
  }
  if (command == "import") {
    const auto r = pc::import_from(*disk, argv[2]);
    std::printf("imported %llu entries, refused %llu", static_cast<unsigned long long>(r.stored),
                static_cast<unsigned long long>(r.refused));
    if (!r.problem.empty()) {
      std::printf(", %llu not read: %s", static_cast<unsigned long long>(r.not_read), r.problem.c_str());
    }
    std::printf("\n");
    return r.refused > 0 || !r.problem.empty() ? 1 : 0;
  }
  return usage();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    // Not only parloop's errors: the standard library's (std::filesystem's, an allocation
    // that failed) are also one line, never an abort.
    std::fprintf(stderr, "parloop-cache: %s\n", e.what());
    return 1;
  }
}
