// SPDX-License-Identifier: MIT
// A fresh folder under the system's temporary one, removed afterwards: a disk cache of a test's own.
#pragma once

#include <stdlib.h>  // mkdtemp

#include <filesystem>
#include <string>
#include <system_error>

#include <catch2/catch.hpp>

namespace parloop_test {

struct temporary_folder {
  temporary_folder() {
    std::string name = (std::filesystem::temp_directory_path() / "parloop-disk-XXXXXX").string();
    REQUIRE(::mkdtemp(name.data()) != nullptr);
    path = name;
  }
  ~temporary_folder() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  temporary_folder(const temporary_folder&) = delete;
  temporary_folder& operator=(const temporary_folder&) = delete;
  std::filesystem::path path;
};

}  // namespace parloop_test
