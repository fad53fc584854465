// SPDX-License-Identifier: MIT
// Whether a disk cache entry's binary is what its stored source compiles to: the entry's source
// built again, with its options, by the compiler its signature names, compared byte for byte.
// A checksum and a key only show that an entry is whole and filed under its own source; an
// entry whose binary was swapped and resealed passes both (docs/disk-cache.md, "What an import trusts").
// A backend says whether its compiler is here (backend/<name>/rebuild.hpp); this is what both
// backends then do with the builds.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::cache {

enum class rebuild_outcome {
  same,            // the stored binary is the rebuilt one
  differs,         // it is not: not compiled from this source by this compiler with these options
  not_comparable,  // this compiler gives different bytes for one source (PoCL): no verdict
  not_here,        // the compiler or device the entry was built with is not on this machine
};

struct rebuild_verdict {
  rebuild_outcome outcome;
  std::string why;
};

// Builds twice: a compiler whose two builds differ is one whose binaries cannot be compared
// (PoCL's differ from build to build); otherwise the stored binary is compared
// with the rebuilt one. `build` returns a binary; a source that does not compile cannot have
// given the stored one. Where a stored binary may hold more than a build gives (an OpenCL
// program read after its first launch), `unequal_proves_nothing` says why, and a binary unlike
// the rebuilt one is not compared rather than found to differ.
template <class Build>
rebuild_verdict compare_with_rebuilt(const std::vector<unsigned char>& stored, Build&& build,
                                     const char* unequal_proves_nothing = nullptr) {
  std::vector<unsigned char> first, second;
  try {
    first = build();
    second = build();
  } catch (const compile_error& e) {
    return {rebuild_outcome::differs,
            parloop::detail::format("its source does not compile here: {}", e.log().substr(0, e.log().find('\n')))};
  }
  if (first != second) {
    return {rebuild_outcome::not_comparable, "two builds of its source here give different binaries"};
  }
  if (stored == first) return {rebuild_outcome::same, "its binary is its source's, rebuilt here"};
  if (unequal_proves_nothing != nullptr) return {rebuild_outcome::not_comparable, unequal_proves_nothing};
  std::size_t differing = stored.size() > first.size() ? stored.size() - first.size() : first.size() - stored.size();
  for (std::size_t i = 0; i < std::min(stored.size(), first.size()); ++i) differing += stored[i] != first[i] ? 1 : 0;
  return {rebuild_outcome::differs,
          parloop::detail::format("its binary is not its source's: {} of its {} bytes differ from the {} rebuilt here",
                                  differing, stored.size(), first.size())};
}

}  // namespace parloop::cache

PARLOOP_COLD_END
