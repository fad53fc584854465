// SPDX-License-Identifier: MIT
// The disk cache: the entry format under every single-byte flip and truncation, foreign and newer
// entries, the folder's location, modes and permissions, and on a device a second kernel loading
// from disk instead of compiling, with the same results, also when entries are damaged or
// several threads miss the same key at once.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>  // environ

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <parloop/backend/rebuild.hpp>
#include <parloop/cache/disk_cache.hpp>
#include <parloop/cache/disk_maintenance.hpp>
#include <parloop/cache/disk_entry.hpp>
#include <parloop/parloop.hpp>

#include "check_values.hpp"
#include "device_under_test.hpp"
#include "fake_backend.hpp"
#include "random_mesh.hpp"
#include "scoped_env.hpp"
#include "temporary_folder.hpp"

// A namespace of this file's own: test_units compiles the unit files as one translation unit.
namespace test_disk_cache {

namespace pl = parloop;
namespace pc = parloop::cache;
using Catch::Matchers::Contains;
using parloop_test::scoped_env;
using parloop_test::temporary_folder;

namespace {

pc::key_material sample_material(const std::string& source = "__kernel void pl_kernel_k() {}") {
  pc::key_material m;
  m.signature = {
      pl::backend_kind::opencl, "Portable Computing Language 3.1", "cpu", "3.1", "OpenCL C 1.2", "OpenCL 3.0",
      "-cl-std=CL1.2"};
  m.source = source;
  m.grid = pl::codegen::grid_size(pl::split_n_across_workgroups{64});
  m.block = 64;
  return m;
}

pc::kernel_record sample_record() {
  pc::kernel_record r;
  r.backend = pl::backend_kind::opencl;
  r.entry = "pl_kernel_k";
  for (int i = 0; i < 96; ++i) r.binary.push_back(static_cast<unsigned char>(i * 7));
  r.grid = pl::codegen::grid_size(pl::split_n_across_workgroups{64});
  r.block = 64;
  return r;
}

std::vector<unsigned char> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

std::vector<std::filesystem::path> files_under(const std::filesystem::path& dir, const std::string& extension) {
  std::vector<std::filesystem::path> out;
  for (const auto& f : std::filesystem::recursive_directory_iterator(dir)) {
    if (f.is_regular_file() && (extension.empty() || f.path().extension() == extension)) out.push_back(f.path());
  }
  return out;
}

// Temporary files of writers (.tmp-XXXXXX) left under `dir`.
std::size_t temporaries_in(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for (const auto& f : files_under(dir, "")) n += f.filename().string().rfind(".tmp-", 0) == 0 ? 1 : 0;
  return n;
}

// The device under test with the disk cache on, in a folder of its own, for one test case. The
// [device] cases run only as test_disk_cache_<backend>, whose main skips (exit 77) without one.
struct cache_on_device {
  temporary_folder cache;
  scoped_env dir{"PARLOOP_CACHE_DIR", cache.path.c_str()};
  scoped_env on{"PARLOOP_CACHE", "on"};
};

}  // namespace

TEST_CASE("an entry reads back as it was written, and only under its own key material", "[disk]") {
  const pc::key_material m = sample_material();
  const std::string bytes = pc::encode_entry(m, sample_record());
  const pc::decoded_entry back = pc::decode_entry(bytes_of(bytes), &m);
  REQUIRE(back.record);
  CHECK(*back.record == sample_record());
  CHECK(back.problem.empty());
  // The key is XXH3-128 of the material: 32 hex digits, different for any difference.
  CHECK(pc::key_of(m).size() == 32);
  CHECK(pc::key_of(m) == pc::key_of(sample_material()));
  pc::key_material other = m;
  other.signature.options += " -cl-fast-relaxed-math";
  CHECK(pc::key_of(other) != pc::key_of(m));
  other = m;
  other.block = 128;
  CHECK(pc::key_of(other) != pc::key_of(m));
  // Stored under other material (as a hash collision would put it): a miss.
  const pc::decoded_entry wrong = pc::decode_entry(bytes_of(bytes), &other);
  CHECK_FALSE(wrong.record);
  CHECK_THAT(wrong.problem, Contains("key material differs"));
}

TEST_CASE("the golden entry of format version 1 still reads, byte for byte as this version writes it",
          "[disk][golden]") {
  // tests/golden/entry-v1.plk was written by encode_entry(sample_material() of parloop 0.1.0,
  // sample_record()).
  // A deliberate format change bumps disk_format_version, keeps this file (it must then be
  // refused by version) and adds the new version's golden entry:
  //   PARLOOP_WRITE_GOLDEN=tests/golden/entry-v<N>.plk build/tests/test_disk_cache "[golden]"
  // The material names a fixed parloop version: a release changes the key, not the format.
  pc::key_material m = sample_material();
  m.parloop_version = "0.1.0";
  const std::string written = pc::encode_entry(m, sample_record());
  if (const char* path = std::getenv("PARLOOP_WRITE_GOLDEN")) {
    std::ofstream(path, std::ios::binary) << written;
  }
  std::ifstream in(PARLOOP_GOLDEN_DIR "/entry-v1.plk", std::ios::binary);
  REQUIRE(in.good());
  const std::string golden{std::istreambuf_iterator<char>(in), {}};
  const pc::decoded_entry d = pc::decode_entry(bytes_of(golden), &m);
  if (pc::disk_format_version == 1) {
    REQUIRE(d.record);
    CHECK(*d.record == sample_record());
    CHECK(golden == written);
  } else {
    CHECK_THAT(d.problem, Contains("cache format version 1"));
  }
}

TEST_CASE("every single-byte flip and every truncation of an entry is detected", "[disk]") {
  const pc::key_material m = sample_material();
  const std::vector<unsigned char> good = bytes_of(pc::encode_entry(m, sample_record()));
  for (std::size_t at = 0; at < good.size(); ++at) {
    for (const unsigned char flip : {0x01, 0x80, 0xff}) {
      std::vector<unsigned char> bad = good;
      bad[at] ^= flip;
      const pc::decoded_entry d = pc::decode_entry(bad, &m);
      if (d.record) FAIL("a flip of byte " << at << " by " << int(flip) << " was not detected");
    }
  }
  for (std::size_t n = 0; n < good.size(); ++n) {
    const pc::decoded_entry d = pc::decode_entry(std::span(good.data(), n), &m);
    if (d.record) FAIL("a truncation to " << n << " bytes was not detected");
  }
  CHECK_THAT(pc::decode_entry({}, &m).problem, Contains("shorter than the 28-byte header"));
  std::vector<unsigned char> foreign = good;
  foreign[0] = 'X';
  CHECK_THAT(pc::decode_entry(foreign, &m).problem, Contains("foreign magic"));
  std::vector<unsigned char> newer = good;
  newer[8] = static_cast<unsigned char>(pc::disk_format_version + 1);
  CHECK_THAT(pc::decode_entry(newer, &m).problem, Contains("cache format version 2, this parloop reads version 1"));
}

// An entry around `payload` with a header that matches it: what someone who crafts a file (or
// an export from another machine) can make, since the checksum is no secret.
std::vector<unsigned char> sealed(const std::string& payload) {
  std::string out(pc::detail::entry_magic.begin(), pc::detail::entry_magic.end());
  pc::detail::put_le(out, pc::disk_format_version, 4);
  pc::detail::put_le(out, payload.size(), 8);
  pc::detail::put_le(out, XXH3_64bits(payload.data(), payload.size()), 8);
  return bytes_of(out + payload);
}

template <class... Fields>
std::string payload_of(Fields&&... fields) {
  std::ostringstream out;
  {
    cereal::PortableBinaryOutputArchive archive(out);
    archive(std::forward<Fields>(fields)...);
  }
  return std::move(out).str();
}

TEST_CASE("a well-sealed entry that lies inside is refused, without allocating what it claims", "[disk]") {
  const pc::key_material m = sample_material();
  // A length of 2^40 bytes: refused before anything of that size is allocated (ASan would stop
  // the run at such an allocation).
  const std::string huge = payload_of(pc::disk_format_version, cereal::make_size_tag(cereal::size_type{1} << 40));
  CHECK_THAT(pc::decode_entry(sealed(huge)).problem, Contains("a length of 1099511627776 in a payload of 13 bytes"));

  // A buffer's is_const byte that is neither 0 nor 1.
  pc::kernel_record r = sample_record();
  const std::string bad_bool = payload_of(
      m, static_cast<int>(r.backend), std::uint8_t{0}, pc::bounded(r.entry), pc::bounded(r.binary), r.grid, r.block,
      cereal::make_size_tag(cereal::size_type{1}), std::uint8_t{0}, 0, 0, std::uint8_t{0}, 1, std::uint8_t{2});
  CHECK_THAT(pc::decode_entry(sealed(bad_bool)).problem, Contains("a damaged buffer layout"));

  // A record launched otherwise than its key says.
  r.block = 128;
  CHECK_THAT(pc::decode_entry(bytes_of(pc::encode_entry(m, r)), &m).problem,
             Contains("the record's launch geometry or buffer layout differs from its key's"));
}

TEST_CASE("a grid-size functor whose values could overflow is refused", "[disk]") {
  using pl::ir::grid_node;
  using pl::ir::grid_op;
  const auto functor = [](std::int64_t constant, grid_op op) {
    return pl::ir::grid_size_functor(std::vector<grid_node>{{grid_op::end, 0}, {grid_op::constant, constant}, {op, 0}});
  };
  CHECK_THROWS_WITH(functor(INT64_MAX, grid_op::add), Contains("can pass 2^62"));
  CHECK_THROWS_WITH(functor(std::int64_t{1} << 40, grid_op::mul), Contains("can pass 2^62"));
  CHECK_THROWS_WITH(functor(INT64_MAX - 1, grid_op::ceil_div), Contains("can pass 2^62"));
  CHECK_THROWS_WITH(functor(INT64_MIN, grid_op::max), Contains("can pass 2^62"));
  // Within range: evaluated exactly, for every index.
  CHECK(functor(std::int64_t{1} << 20, grid_op::mul)(0, INT32_MAX, {1}) == std::int64_t{INT32_MAX} << 20);
  CHECK(functor(std::int64_t{1} << 61, grid_op::ceil_div)(0, INT32_MAX, {1}) == 1);
}

TEST_CASE("the cache folder: where the environment says, private, refused when others can write it", "[disk]") {
  temporary_folder tmp;
  {
    const scoped_env dir("PARLOOP_CACHE_DIR", (tmp.path / "mine").c_str());
    const scoped_env mode("PARLOOP_CACHE", nullptr);
    const auto disk = pc::disk_cache::open(pl::settings::from_environment());
    REQUIRE(disk != nullptr);
    CHECK(disk->mode() == pc::disk_mode::read_write);
    CHECK(disk->dir() == tmp.path / "mine");
    struct stat st {};
    REQUIRE(::stat(disk->dir().c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    const std::string key = pc::key_of(sample_material());
    CHECK(disk->path_of(pl::backend_kind::opencl, key) ==
          tmp.path / "mine" / "opencl" / key.substr(0, 2) / (key + ".plk"));
  }
  {
    const scoped_env dir("PARLOOP_CACHE_DIR", nullptr);
    const scoped_env mode("PARLOOP_CACHE", "on");
    const scoped_env xdg("XDG_CACHE_HOME", tmp.path.c_str());
    const auto disk = pc::disk_cache::open(pl::settings::from_environment());
    REQUIRE(disk != nullptr);
    CHECK(disk->dir() == tmp.path / "parloop");
  }
  {
    const scoped_env off("PARLOOP_CACHE", "off");
    CHECK(pc::disk_cache::open(pl::settings::from_environment()) == nullptr);
  }
  {
    const scoped_env bad("PARLOOP_CACHE", "yes");
    CHECK_THROWS_WITH(pc::disk_cache::open(pl::settings::from_environment()),
                      Contains("PARLOOP_CACHE is 'yes': use on (") && Contains("off (") && Contains("or read-only ("));
  }
  // A folder others can write could hold an entry planted by them: not used.
  const std::filesystem::path shared = tmp.path / "shared";
  std::filesystem::create_directories(shared);
  ::chmod(shared.c_str(), 0777);
  CHECK(pc::disk_cache::open(shared, pc::disk_mode::read_write) == nullptr);
  ::chmod(shared.c_str(), 0700);
  CHECK(pc::disk_cache::open(shared, pc::disk_mode::read_write) != nullptr);
}

TEST_CASE("each level of the cache parloop made is checked: one others can write is not used", "[disk]") {
  temporary_folder tmp;
  const auto disk = pc::disk_cache::open(tmp.path / "c", pc::disk_mode::read_write);
  REQUIRE(disk != nullptr);
  const pc::key_material m = sample_material();
  const std::string key = pc::key_of(m);
  REQUIRE(disk->store(m, key, sample_record()));
  const std::filesystem::path shard = disk->path_of(pl::backend_kind::opencl, key).parent_path();
  const std::filesystem::path backend = shard.parent_path();
  struct stat st {};
  for (const std::filesystem::path& level : {backend, shard}) {
    REQUIRE(::stat(level.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
  }
  for (const std::filesystem::path& level : {backend, shard}) {
    INFO(level);
    // The cache folder is 700; a level below it that others can write is neither read nor
    // written, nor made private again (what it holds may not be parloop's).
    ::chmod(level.c_str(), 0777);
    CHECK_FALSE(disk->load(m, key));
    CHECK_FALSE(disk->store(m, key, sample_record()));
    REQUIRE(::stat(level.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0777);
    ::chmod(level.c_str(), 0700);
    CHECK(disk->load(m, key));
  }
  // A new shard below a backend level others can write is not written either.
  const pc::key_material other = sample_material("__kernel void pl_kernel_other() {}");
  ::chmod(backend.c_str(), 0777);
  CHECK_FALSE(disk->store(other, pc::key_of(other), sample_record()));
  ::chmod(backend.c_str(), 0700);
  CHECK(disk->store(other, pc::key_of(other), sample_record()));
  // A level that is a link to somewhere else is not followed.
  std::filesystem::rename(backend, tmp.path / "elsewhere");
  std::filesystem::create_directory_symlink(tmp.path / "elsewhere", backend);
  CHECK_FALSE(disk->load(m, key));
}

TEST_CASE("entries are stored whole, found again, and a damaged one is a miss", "[disk]") {
  temporary_folder tmp;
  const auto disk = pc::disk_cache::open(tmp.path / "c", pc::disk_mode::read_write);
  REQUIRE(disk != nullptr);
  const pc::key_material m = sample_material();
  const std::string key = pc::key_of(m);
  CHECK_FALSE(disk->load(m, key));
  disk->store(m, key, sample_record());
  const auto back = disk->load(m, key);
  REQUIRE(back);
  CHECK(*back == sample_record());
  CHECK(files_under(tmp.path, ".plk").size() == 1);
  CHECK(temporaries_in(tmp.path) == 0);

  // Damaged on disk: a miss, and storing again repairs it.
  const std::filesystem::path path = disk->path_of(pl::backend_kind::opencl, key);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 3);
  CHECK_FALSE(disk->load(m, key));
  disk->store(m, key, sample_record());
  CHECK(disk->load(m, key));

  // Read-only: found, never written.
  const auto reader = pc::disk_cache::open(tmp.path / "c", pc::disk_mode::read_only);
  CHECK(reader->load(m, key));
  const pc::key_material other = sample_material("__kernel void pl_kernel_other() {}");
  reader->store(other, pc::key_of(other), sample_record());
  CHECK_FALSE(reader->load(other, pc::key_of(other)));
  CHECK_FALSE(reader->lock(pl::backend_kind::opencl, pc::key_of(other), std::chrono::milliseconds(0)).held());

  // The lock of a key excludes a second holder until released.
  {
    const pc::key_lock first = disk->lock(pl::backend_kind::opencl, key, std::chrono::milliseconds(0));
    CHECK(first.held());
    CHECK_FALSE(disk->lock(pl::backend_kind::opencl, key, std::chrono::milliseconds(20)).held());
  }
  CHECK(disk->lock(pl::backend_kind::opencl, key, std::chrono::milliseconds(0)).held());
}

TEST_CASE("the tool's view: entries checked, cleared, exported and imported again", "[disk][tool]") {
  temporary_folder tmp;
  const auto disk = pc::disk_cache::open(tmp.path / "c", pc::disk_mode::read_write);
  REQUIRE(disk != nullptr);
  const pc::key_material a = sample_material("__kernel void pl_kernel_a() {}");
  const pc::key_material b = sample_material("__kernel void pl_kernel_b() {}");
  CHECK(disk->store(a, pc::key_of(a), sample_record()));
  CHECK(disk->store(b, pc::key_of(b), sample_record()));
  auto listed = pc::entries(*disk);
  REQUIRE(listed.size() == 2);
  for (const auto& e : listed) {
    CHECK(e.problem.empty());
    CHECK(e.kernel == "pl_kernel_k");
    CHECK(e.backend == "opencl");
    CHECK(e.device == "cpu");
  }

  const std::filesystem::path file = tmp.path / "kernels.plx";
  CHECK(pc::export_to(*disk, file) == 2);
  CHECK(pc::clear(*disk) == 2);
  CHECK(pc::measure(*disk).entries == 0);
  CHECK(pc::import_from(*disk, file) == pc::import_result{2, 0, 0, ""});
  CHECK(disk->load(a, pc::key_of(a)));
  CHECK(disk->load(b, pc::key_of(b)));

  // An entry filed under another key than its material's is bad (and never loaded: the key is
  // the material's hash).
  const std::filesystem::path moved = disk->path_of(pl::backend_kind::opencl, pc::key_of(a));
  std::filesystem::path other = moved;
  other.replace_filename(std::string(32, 'e') + ".plk");
  std::filesystem::rename(moved, other);
  listed = pc::entries(*disk);
  CHECK(std::count_if(listed.begin(), listed.end(),
                      [](const auto& e) { return e.problem == "filed under another key than its material's"; }) == 1);

  // A damaged export: the damaged entry is refused, the others stored.
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes[bytes.size() - 5] ^= 0x10;
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  pc::clear(*disk);
  CHECK(pc::import_from(*disk, file) == pc::import_result{1, 1, 0, ""});
  CHECK_THROWS_WITH(
      pc::import_from(*disk, tmp.path / "missing.plx"),
      Contains("import: cannot read '" + (tmp.path / "missing.plx").string() + "': No such file or directory"));
}

namespace {

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string read_back(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Two hours ago: older than any temporary file of a live writer.
void age(const std::filesystem::path& path) {
  std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now() - std::chrono::hours(2));
}

}  // namespace

TEST_CASE("clear refuses a folder that holds anything parloop did not write, and removes nothing", "[disk][tool]") {
  temporary_folder tmp;
  const auto disk = pc::disk_cache::open(tmp.path, pc::disk_mode::read_write);
  REQUIRE(disk != nullptr);
  const pc::key_material m = sample_material();
  const std::string key = pc::key_of(m);
  REQUIRE(disk->store(m, key, sample_record()));
  const std::filesystem::path shard = disk->path_of(pl::backend_kind::opencl, key).parent_path();
  // What a user keeps in a folder named as the cache (PARLOOP_CACHE_DIR=$HOME), each alone:
  // clear names it and leaves everything where it was.
  const std::vector<std::pair<std::filesystem::path, std::string>> theirs{
      {tmp.path / "notes.txt", "a file parloop does not write"},
      {tmp.path / "photos" / "cat.jpg", "a folder parloop does not make"},
      {tmp.path / "opencl" / "drafts" / "plan.txt", "a folder parloop does not make"},
      {shard / "todo.txt", "a file parloop does not write"},
      {shard / (std::string(32, '0') + ".plk"), "named as an entry, without an entry's magic"},
      {shard / (std::string(32, '0') + ".lock"), "a file parloop does not write"},  // parloop's are empty
  };
  for (const auto& [path, what] : theirs) {
    CAPTURE(path);
    write_file(path, "the user's own");
    const std::filesystem::path named =
        path.parent_path() == tmp.path || path.parent_path() == shard ? path : path.parent_path();
    CHECK_THROWS_WITH(pc::clear(*disk), Contains("clear: '" + named.string() + "' (" + what + ") is not parloop's") &&
                                            Contains("nothing was removed"));
    CHECK(read_back(path) == "the user's own");
    CHECK(disk->load(m, key));
    std::filesystem::remove_all(named);
  }
  // A symbolic link is not followed, nor removed.
  std::filesystem::create_directory_symlink(tmp.path / "opencl", tmp.path / "cuda");
  CHECK_THROWS_WITH(pc::clear(*disk), Contains("'" + (tmp.path / "cuda").string() + "' (a symbolic link)"));
  CHECK(disk->load(m, key));
  std::filesystem::remove(tmp.path / "cuda");

  // Only parloop's: every entry goes, and its folders; the cache's folder stays.
  CHECK(pc::clear(*disk) == 1);
  CHECK(std::filesystem::is_directory(tmp.path));
  CHECK(std::filesystem::is_empty(tmp.path));
}

TEST_CASE("stores and prune remove only parloop's own files, in its own folders", "[disk]") {
  temporary_folder tmp;
  const auto disk = pc::disk_cache::open(tmp.path, pc::disk_mode::read_write);
  REQUIRE(disk != nullptr);
  const pc::key_material m = sample_material();
  const std::string key = pc::key_of(m);
  const std::filesystem::path shard = disk->path_of(pl::backend_kind::opencl, key).parent_path();
  // Named as parloop names its files, but not in its folders, or not of its names or magic; and
  // old, as a crashed writer's temporary file is.
  const std::vector<std::filesystem::path> theirs{
      tmp.path / ".tmp-x",
      tmp.path / ".tmp-abc123",
      tmp.path / "foo.plk",
      tmp.path / "work" / ".tmp-abc123",
      tmp.path / "work" / (key + ".plk"),
      tmp.path / "opencl" / "src" / ".tmp-abc123",
      shard / ".tmp-x",
      shard / "foo.plk",
      shard / (std::string(32, '0') + ".plk"),
  };
  for (const auto& path : theirs) {
    write_file(path, "the user's own");
    age(path);
  }
  // parloop's: a crashed writer's temporary file (old) and a live writer's (new).
  write_file(shard / ".tmp-Ab3xYz", "half an entry");
  age(shard / ".tmp-Ab3xYz");
  write_file(shard / ".tmp-Zz9aaa", "half an entry");

  REQUIRE(disk->store(m, key, sample_record()));
  CHECK_FALSE(std::filesystem::exists(shard / ".tmp-Ab3xYz"));
  CHECK(std::filesystem::exists(shard / ".tmp-Zz9aaa"));
  CHECK(disk->prune(0) == 1);
  CHECK_FALSE(disk->load(m, key));
  CHECK(pc::measure(*disk).entries == 1);  // the file named as an entry without its magic: listed (as bad), kept
  for (const auto& path : theirs) {
    CAPTURE(path);
    CHECK(read_back(path) == "the user's own");
  }
}

TEST_CASE("a store walks the cache past its cap or after stores_between_walks stores, not at each", "[disk]") {
  temporary_folder tmp;
  const auto disk = pc::disk_cache::open(tmp.path, pc::disk_mode::read_write, std::uint64_t{1} << 20);
  REQUIRE(disk != nullptr);
  int stored = 0;
  const auto store = [&](const pc::kernel_record& r) {
    const pc::key_material m = sample_material(fmt::format("__kernel void pl_kernel_k{}() {{}}", stored++));
    REQUIRE(disk->store(m, pc::key_of(m), r));
    return disk->path_of(pl::backend_kind::opencl, pc::key_of(m)).parent_path();
  };
  // A walk removes a crashed writer's temporary file: whether it is still there says whether a
  // store walked.
  const auto crashed_writer = [](const std::filesystem::path& shard) {
    write_file(shard / ".tmp-crash0", "half an entry");
    age(shard / ".tmp-crash0");
    return shard / ".tmp-crash0";
  };
  // The first store of a process walks (and measures the cache).
  std::filesystem::path left = crashed_writer(store(sample_record()));
  for (std::uint64_t i = 1; i < pc::disk_cache::stores_between_walks; ++i) store(sample_record());
  CHECK(std::filesystem::exists(left));
  store(sample_record());
  CHECK_FALSE(std::filesystem::exists(left));

  // Past the cap (1 MiB): walked at once.
  left = crashed_writer(store(sample_record()));
  pc::kernel_record big = sample_record();
  big.binary.assign(600 * 1024, 0x42);
  store(big);
  CHECK(std::filesystem::exists(left));
  store(big);
  CHECK_FALSE(std::filesystem::exists(left));
  CHECK(pc::measure(*disk).bytes <= disk->max_bytes());
}

TEST_CASE("prune removes the lock files that no process holds", "[disk]") {
  temporary_folder tmp;
  const auto disk = pc::disk_cache::open(tmp.path, pc::disk_mode::read_write);
  REQUIRE(disk != nullptr);
  const std::string held_key = pc::key_of(sample_material("__kernel void pl_kernel_held() {}"));
  const std::string free_key = pc::key_of(sample_material("__kernel void pl_kernel_free() {}"));
  const auto lock_file = [&](const std::string& key) {
    return disk->path_of(pl::backend_kind::opencl, key).replace_extension(".lock");
  };
  const pc::key_lock held = disk->lock(pl::backend_kind::opencl, held_key, std::chrono::milliseconds(0));
  REQUIRE(held.held());
  CHECK(disk->lock(pl::backend_kind::opencl, free_key, std::chrono::milliseconds(0)).held());
  REQUIRE(std::filesystem::exists(lock_file(held_key)));
  REQUIRE(std::filesystem::exists(lock_file(free_key)));
  // The user's, beside them.
  const std::filesystem::path theirs = lock_file(free_key).parent_path() / "mine.lock";
  write_file(theirs, "");

  disk->prune(disk->max_bytes());
  CHECK_FALSE(std::filesystem::exists(lock_file(free_key)));
  CHECK(std::filesystem::exists(lock_file(held_key)));
  CHECK(std::filesystem::exists(theirs));
  // The held lock is still held; the removed one is taken again on a new file.
  CHECK_FALSE(disk->lock(pl::backend_kind::opencl, held_key, std::chrono::milliseconds(0)).held());
  CHECK(disk->lock(pl::backend_kind::opencl, free_key, std::chrono::milliseconds(0)).held());
  CHECK(std::filesystem::exists(lock_file(free_key)));
}

TEST_CASE("an export whose size field is damaged says how many entries it did not read", "[disk][tool]") {
  temporary_folder tmp;
  const auto disk = pc::disk_cache::open(tmp.path / "c", pc::disk_mode::read_write);
  REQUIRE(disk != nullptr);
  for (int i = 0; i < 4; ++i) {
    const pc::key_material m = sample_material(fmt::format("__kernel void pl_kernel_k{}() {{}}", i));
    REQUIRE(disk->store(m, pc::key_of(m), sample_record()));
  }
  const std::filesystem::path file = tmp.path / "kernels.plx";
  REQUIRE(pc::export_to(*disk, file) == 4);
  const std::string good = read_back(file);
  // The second entry's size: after the export's magic, the first entry's size and its bytes.
  const std::size_t first = pc::detail::get_le(bytes_of(good), 8, 8);
  const std::size_t second_at = 8 + 8 + first;
  const std::size_t second = pc::detail::get_le(bytes_of(good), second_at, 8);
  const auto import_with_second_size = [&](std::uint64_t size) {
    std::string bytes = good.substr(0, second_at);
    pc::detail::put_le(bytes, size, 8);
    write_file(file, bytes + good.substr(second_at + 8));
    pc::clear(*disk);
    return pc::import_from(*disk, file);
  };

  // Larger than the file: the three entries from it on are not read.
  const auto huge = import_with_second_size(std::uint64_t{1} << 60);
  CHECK(huge.stored == 1);
  CHECK(huge.refused == 0);
  CHECK(huge.not_read == 3);
  CHECK(huge.problem ==
        fmt::format("entry 2's size says 1152921504606846976 bytes, where {} are left", good.size() - second_at - 8));

  // One byte short: neither the second entry's header nor the third entry confirms it, so where
  // the third starts is unknown.
  const auto short_by_one = import_with_second_size(second - 1);
  CHECK(short_by_one.stored == 1);
  CHECK(short_by_one.refused == 0);
  CHECK(short_by_one.not_read == 3);
  CHECK(short_by_one.problem ==
        fmt::format("entry 2's size ({} bytes) is neither its header's length nor where an entry starts", second - 1));
  CHECK(pc::measure(*disk).entries == 1);

  // A damaged entry whose size is right (its magic, or its header's length): refused alone.
  for (const std::size_t damaged : {second_at + 8, second_at + 8 + 12}) {
    CAPTURE(damaged);
    std::string bytes = good;
    bytes[damaged] ^= 0x01;
    write_file(file, bytes);
    pc::clear(*disk);
    CHECK(pc::import_from(*disk, file) == pc::import_result{3, 1, 0, ""});
  }

  // Bytes after the last entry, too few for a size.
  write_file(file, good + "abc");
  pc::clear(*disk);
  CHECK(pc::import_from(*disk, file) == pc::import_result{4, 0, 0, "3 bytes at the end, too few for entry 5's size"});
}

TEST_CASE("export and import name what is wrong with their file", "[disk][tool]") {
  temporary_folder tmp;
  const auto disk = pc::disk_cache::open(tmp.path / "c", pc::disk_mode::read_write);
  REQUIRE(disk != nullptr);
  // parloop's errors (the tool says them in one line), never std::filesystem's.
  CHECK_THROWS_AS(pc::export_to(*disk, ""), pl::error);
  CHECK_THROWS_WITH(pc::export_to(*disk, ""), Contains("export: the file name is empty"));
  CHECK_THROWS_WITH(pc::export_to(*disk, tmp.path),
                    Contains("export: cannot write '" + tmp.path.string() + "': Is a directory"));
  CHECK_THROWS_WITH(
      pc::export_to(*disk, tmp.path / "no" / "such.plx"),
      Contains("export: cannot write '" + (tmp.path / "no" / "such.plx").string() + "': No such file or directory"));
  CHECK_THROWS_AS(pc::import_from(*disk, ""), pl::error);
  CHECK_THROWS_WITH(pc::import_from(*disk, ""), Contains("import: the file name is empty"));
  CHECK_THROWS_WITH(pc::import_from(*disk, tmp.path),
                    Contains("import: cannot read '" + tmp.path.string() + "': Is a directory"));
}

TEST_CASE("a size in MiB: a whole number up to 2^40, never wrapped around", "[disk][tool]") {
  CHECK(pl::detail::mebibytes("prune MB", "0", 0) == 0);
  CHECK(pl::detail::mebibytes("prune MB", "200", 0) == std::uint64_t{200} << 20);
  CHECK(pl::detail::mebibytes("prune MB", "1099511627776", 0) == std::uint64_t{1} << 60);
  // 2^44 MiB is 2^64 bytes: shifted, it was 0, and prune removed everything.
  for (const char* bad : {"17592186044416", "1099511627777", "18446744073709551616", "-1", "", " 5", "+5", "5x"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH(pl::detail::mebibytes("prune MB", bad, 0),
                      Contains(fmt::format("prune MB='{}': expected a whole number of MiB, at least 0 and at most "
                                           "1099511627776 (2^40)",
                                           bad)));
  }
  CHECK_THROWS_WITH(pl::detail::mebibytes("PARLOOP_CACHE_MAX_MB", "0", 1),
                    Contains("PARLOOP_CACHE_MAX_MB='0': expected a whole number of MiB, at least 1"));
  // The most it takes keeps every entry.
  temporary_folder tmp;
  const auto disk = pc::disk_cache::open(tmp.path, pc::disk_mode::read_write);
  REQUIRE(disk != nullptr);
  const pc::key_material m = sample_material();
  REQUIRE(disk->store(m, pc::key_of(m), sample_record()));
  CHECK(disk->prune(pl::detail::mebibytes("prune MB", "1099511627776", 0)) == 0);
  CHECK(disk->load(m, pc::key_of(m)));
}

TEST_CASE("past PARLOOP_CACHE_MAX_MB the least recently used entries go", "[disk]") {
  temporary_folder tmp;
  const scoped_env cap("PARLOOP_CACHE_MAX_MB", "1"), dir("PARLOOP_CACHE_DIR", (tmp.path / "c").c_str()),
      mode("PARLOOP_CACHE", "on");
  const auto disk = pc::disk_cache::open(pl::settings::from_environment());
  REQUIRE(disk != nullptr);
  CHECK(disk->max_bytes() == 1u << 20);
  pc::kernel_record big = sample_record();
  big.binary.assign(300 * 1024, 0x42);
  std::vector<pc::key_material> stored;
  // Apart in time by more than the file system's clock tick (a few ms): entries stored within
  // one tick have the same modification time, and either could go first.
  const auto store = [&](int i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    stored.push_back(sample_material(fmt::format("__kernel void pl_kernel_k{}() {{}}", i)));
    disk->store(stored.back(), pc::key_of(stored.back()), big);
  };
  const auto present = [&](int i) {
    return disk->load(stored[static_cast<std::size_t>(i)], pc::key_of(stored[static_cast<std::size_t>(i)])).has_value();
  };
  for (int i = 0; i < 3; ++i) store(i);
  CHECK(pc::measure(*disk).entries == 3);
  // Entry 0 is used again: entry 1 is now the least recently used, and goes first.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  CHECK(present(0));
  store(3);
  CHECK(pc::measure(*disk).entries == 3);
  CHECK(pc::measure(*disk).bytes <= disk->max_bytes());
  CHECK_FALSE(present(1));
  CHECK(present(0));
  CHECK(present(2));
  CHECK(present(3));
  // Pruning to a size by hand (what `parloop-cache prune` will do).
  CHECK(disk->prune(0) == 3);
  CHECK(pc::measure(*disk).entries == 0);
  {
    const scoped_env bad("PARLOOP_CACHE_MAX_MB", "-5");
    CHECK_THROWS_WITH(pl::settings::from_environment(),
                      Contains("PARLOOP_CACHE_MAX_MB='-5': expected a whole number of MiB, at least 1"));
  }
}

TEST_CASE("where a device finishes a kernel at its first launch, its entry is stored again after it", "[disk]") {
  const auto body = [](auto x, auto factor) { x *= factor; };
  // Each process (a fake backend, a new pl::kernel) runs the loop three times.
  const auto run = [&](const std::shared_ptr<parloop_test::fake_backend>& device) {
    const pl::Runtime rt = parloop_test::runtime_on(device);
    const pl::Set points(rt, 100);
    pl::Dat<double> x(points);
    pl::Global<double> factor(rt, 2.0);
    const auto k = pl::kernel("grows", body);
    for (int i = 0; i < 3; ++i) pl::par_loop(k, points, x(pl::RW), factor(pl::READ));
    return std::pair(k.cache().compiles(), k.cache().disk_hits());
  };
  for (const bool after_launch : {false, true}) {
    CAPTURE(after_launch);
    const temporary_folder folder;
    const std::string dir = folder.path.string();
    const scoped_env on("PARLOOP_CACHE", "on"), where("PARLOOP_CACHE_DIR", dir.c_str());
    auto writer = std::make_shared<parloop_test::fake_backend>();
    writer->record_after_first_launch = after_launch;
    CHECK(run(writer) == std::pair<std::uint64_t, std::uint64_t>(1, 0));
    // Waited for once, by the store after the first launch; the later launches go straight on.
    CHECK(writer->copies.waits == (after_launch ? 1 : 0));
    CHECK(files_under(folder.path, ".plk").size() == 1);

    auto reader = std::make_shared<parloop_test::fake_backend>();
    CHECK(run(reader) == std::pair<std::uint64_t, std::uint64_t>(0, 1));
    REQUIRE(reader->loaded_binaries.size() == 1);
    CHECK(reader->loaded_binaries.front().ends_with("+launched") == after_launch);
    // A loaded kernel is not stored again.
    CHECK(reader->copies.waits == 0);
  }

  // A first call over an empty range stores what there is and unlocks the key: no process
  // waits for a launch that may never come.
  const temporary_folder folder;
  const std::string dir = folder.path.string();
  const scoped_env on("PARLOOP_CACHE", "on"), where("PARLOOP_CACHE_DIR", dir.c_str());
  auto device = std::make_shared<parloop_test::fake_backend>();
  device->record_after_first_launch = true;
  const pl::Runtime rt = parloop_test::runtime_on(device);
  const pl::Set points(rt, 100);
  pl::Dat<double> x(points);
  pl::Global<double> factor(rt, 2.0);
  const auto k = pl::kernel("grows", body);
  pl::par_loop(k, points, pl::range{7, 7}, x(pl::RW), factor(pl::READ));
  CHECK(device->enqueues == 0);
  REQUIRE(files_under(folder.path, ".plk").size() == 1);
  const auto unlocked = [&](const std::filesystem::path& lock) {
    const int fd = ::open(lock.c_str(), O_RDWR | O_CLOEXEC);
    REQUIRE(fd >= 0);
    const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    ::close(fd);
    return free;
  };
  const std::vector<std::filesystem::path> locks = files_under(folder.path, ".lock");
  REQUIRE(locks.size() == 1);
  CHECK(unlocked(locks.front()));

  // A first launch that throws before it runs (out of device memory) stores nothing and unlocks
  // the key at once: other processes compile the kernel rather than wait for it.
  device->copies.out_of_memory = true;
  const auto other = pl::kernel("shrinks", [](auto x, auto factor) { x /= factor; });
  CHECK_THROWS_WITH(pl::par_loop(other, points, x(pl::RW), factor(pl::READ)), Contains("out of memory"));
  CHECK(device->enqueues == 0);
  CHECK(files_under(folder.path, ".plk").size() == 1);
  const std::vector<std::filesystem::path> both = files_under(folder.path, ".lock");
  REQUIRE(both.size() == 2);
  for (const std::filesystem::path& lock : both) CHECK(unlocked(lock));
  device->copies.out_of_memory = false;
}

TEST_CASE("on a device, a second kernel loads from disk instead of compiling, with the same results",
          "[disk][device]") {
  const cache_on_device device;
  const std::filesystem::path& folder = device.cache.path;
  const int n = 1000;
  const auto b0 = parloop_test::random_values<double>(n);
  const auto body = [](auto a, auto b, auto s) { a = b * s + 1.0; };
  const auto run = [&](const auto& k) {
    const pl::Runtime rt = parloop_test::device_runtime();
    const pl::Set points(rt, n);
    pl::Dat<double> a(points), b(points, b0);
    pl::Global<double> s(rt, 2.5);
    pl::par_loop(k, points, a(pl::WRITE), b(pl::READ), s(pl::READ));
    return std::vector<double>(a.host().begin(), a.host().end());
  };
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = b0[static_cast<std::size_t>(i)] * 2.5 + 1.0;

  // Each pl::kernel has its own in-memory cache: a new one is what a second run of the program
  // has. A device may fuse the multiply-add: within check_values' tolerance of the host's, and
  // bit for bit the first run's wherever the binary is the same.
  const auto first = pl::kernel("disk_axpy", body);
  const std::vector<double> got = run(first);
  parloop_test::check_values<double>(got, want);
  CHECK(first.cache().compiles() == 1);
  CHECK(first.cache().disk_hits() == 0);
  REQUIRE(files_under(folder, ".plk").size() == 1);

  const auto second = pl::kernel("disk_axpy", body);
  CHECK(run(second) == got);
  CHECK(second.cache().compiles() == 0);
  CHECK(second.cache().disk_hits() == 1);

  // A damaged entry: compiled again, replaced, and found by the next one.
  const std::filesystem::path entry = files_under(folder, ".plk").front();
  {
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(entry) / 2));
    f.put('\x5a');
  }
  const auto third = pl::kernel("disk_axpy", body);
  CHECK(run(third) == got);
  CHECK(third.cache().compiles() == 1);
  const auto fourth = pl::kernel("disk_axpy", body);
  CHECK(run(fourth) == got);
  CHECK(fourth.cache().disk_hits() == 1);

  // Another kernel body is another entry.
  const auto other = pl::kernel("disk_axpy", [](auto a, auto b, auto s) { a = b * s - 1.0; });
  run(other);
  CHECK(other.cache().compiles() == 1);
  CHECK(files_under(folder, ".plk").size() == 2);
}

TEST_CASE("verify --rebuild: the entries a device stored are their sources' binaries, or say why not compared",
          "[disk][device]") {
  const cache_on_device device;
  {
    const pl::Runtime rt = parloop_test::device_runtime();
    const pl::Set points(rt, 1000);
    pl::Dat<double> a(points), b(points, parloop_test::random_values<double>(1000));
    pl::par_loop(pl::kernel("rebuilt_copy", [](auto a, auto b) { a = b; }), points, a(pl::WRITE), b(pl::READ));
    pl::par_loop(pl::kernel("rebuilt_scale", [](auto a, auto b) { a = b * 3.0; }), points, a(pl::WRITE), b(pl::READ));
  }
  const auto disk = pc::disk_cache::open(pl::settings::from_environment());
  REQUIRE(disk != nullptr);
  const std::vector<pc::entry_info> entries = pc::entries(*disk);
  REQUIRE(entries.size() == 2);
  // NVRTC gives the same bytes for a source every time: its entries are compared, and are their
  // sources'. An OpenCL entry is its source's rebuilt, or not compared (PoCL's two builds of one
  // source differ; a binary read after the first launch holds more): never found to differ.
  const bool compared = parloop_test::device_backend() == pl::backend_kind::cuda;
  for (const auto& e : entries) {
    const pc::rebuild_verdict v = pl::backend::check_rebuild(e.path);
    CAPTURE(e.kernel, v.why);
    if (compared)
      CHECK(v.outcome == pc::rebuild_outcome::same);
    else
      CHECK((v.outcome == pc::rebuild_outcome::same || v.outcome == pc::rebuild_outcome::not_comparable));
  }
  // The second entry's binary sealed under the first's material (a swapped export, resealed).
  const auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    const std::vector<unsigned char> bytes{std::istreambuf_iterator<char>(in), {}};
    return pc::decode_entry(bytes);
  };
  const pc::decoded_entry first = read(entries[0].path), second = read(entries[1].path);
  REQUIRE(first.record);
  REQUIRE(second.record);
  pc::kernel_record forged = *first.record;
  forged.binary = second.record->binary;
  REQUIRE(disk->store(*first.material, pc::key_of(*first.material), forged));
  for (const auto& e : pc::entries(*disk)) CHECK(e.problem.empty());
  const pc::rebuild_verdict v = pl::backend::check_rebuild(entries[0].path);
  CAPTURE(v.why);
  CHECK(v.outcome == (compared ? pc::rebuild_outcome::differs : pc::rebuild_outcome::not_comparable));
}

TEST_CASE("threads missing one key at once compile it once and all get the right answer", "[disk][device]") {
  const cache_on_device device;
  const std::filesystem::path& folder = device.cache.path;
  const int threads = 6, n = 512;
  std::atomic<int> right{0};
  std::atomic<std::uint64_t> compiles{0}, hits{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      const auto k = pl::kernel("disk_race", [](auto a, auto b) { a = b * b; });
      const pl::Runtime rt = parloop_test::device_runtime();
      const pl::Set points(rt, n);
      pl::Dat<double> a(points), b(points, std::vector<double>(n, 3.0));
      pl::par_loop(k, points, a(pl::WRITE), b(pl::READ));
      bool ok = true;
      for (const double v : a.host()) ok = ok && v == 9.0;
      right += ok ? 1 : 0;
      compiles += k.cache().compiles();
      hits += k.cache().disk_hits();
    });
  }
  for (auto& t : pool) t.join();
  CHECK(right == threads);
  CHECK(compiles == 1);
  CHECK(hits == threads - 1);
  CHECK(files_under(folder, ".plk").size() == 1);
  CHECK(temporaries_in(folder) == 0);
}

namespace {

struct child_result {
  int status = -1;
  unsigned long long compiled = 0, disk_hits = 0;
  bool right = false;
};

// Starts `n` processes of disk_cache_child at once (each with this process's environment) and
// waits for them all.
std::vector<child_result> run_children(int n, const std::filesystem::path& logs) {
  std::vector<pid_t> pids;
  for (int i = 0; i < n; ++i) {
    const std::string log = (logs / ("child-" + std::to_string(i) + ".txt")).string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    char* argv[] = {const_cast<char*>(PARLOOP_DISK_CACHE_CHILD), nullptr};
    pid_t pid = 0;
    REQUIRE(::posix_spawn(&pid, PARLOOP_DISK_CACHE_CHILD, &actions, nullptr, argv, environ) == 0);
    posix_spawn_file_actions_destroy(&actions);
    pids.push_back(pid);
  }
  std::vector<child_result> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    child_result& r = out[static_cast<std::size_t>(i)];
    int status = 0;
    REQUIRE(::waitpid(pids[static_cast<std::size_t>(i)], &status, 0) == pids[static_cast<std::size_t>(i)]);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::ifstream in(logs / ("child-" + std::to_string(i) + ".txt"));
    std::string line;
    std::getline(in, line);
    int right = 0;
    if (std::sscanf(line.c_str(), "compiled=%llu disk_hits=%llu right=%d", &r.compiled, &r.disk_hits, &right) == 3) {
      r.right = right == 1;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("16 processes started together on an empty cache: right answers, one compile and one entry per kernel",
          "[disk][device][processes]") {
  const cache_on_device device;
  const std::filesystem::path& folder = device.cache.path;
  temporary_folder logs;
  const std::vector<child_result> first = run_children(16, logs.path);
  unsigned long long compiled = 0, loaded = 0;
  for (const child_result& r : first) {
    CHECK(r.status == 0);
    CHECK(r.right);
    compiled += r.compiled;
    loaded += r.disk_hits;
  }
  // Three kernels: each compiled by the process that took its lock, loaded by the others.
  CHECK(compiled == 3);
  CHECK(loaded == 16 * 3 - 3);
  CHECK(files_under(folder, ".plk").size() == 3);
  CHECK(temporaries_in(folder) == 0);

  // A second run of the program compiles nothing.
  for (const child_result& r : run_children(2, logs.path)) {
    CHECK(r.status == 0);
    CHECK(r.right);
    CHECK(r.compiled == 0);
    CHECK(r.disk_hits == 3);
  }
}

}  // namespace test_disk_cache
