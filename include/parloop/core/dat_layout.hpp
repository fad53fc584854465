// SPDX-License-Identifier: MIT
// How a device keeps a dat of several components: as the host does, element by element, or
// component by component. Fixed for a runtime when it opens; the host's copy is always element
// by element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop {

enum class dat_layout : std::uint8_t {
  // Array of structures: element e's component k at e * dim + k, as on the host.
  aos,
  // Structure of arrays (OP2's OP_AUTO_SOA): component k of element e at k * stride + e, so that
  // neighbouring work-items read neighbouring values of each component, in fewer memory
  // transactions (docs/performance.md, Airfoil on the GPU). The stride is the set's size
  // rounded up to soa_alignment elements: each component starts aligned for vectors.
  soa,
};

constexpr std::string_view to_string(dat_layout l) { return l == dat_layout::aos ? "aos" : "soa"; }

namespace detail {

inline constexpr std::size_t soa_alignment = 32;

// The stride of a dat kept by components on `elements` elements; kernels take it as an int.
inline std::size_t soa_stride(std::size_t elements) {
  const std::size_t stride = (elements + soa_alignment - 1) / soa_alignment * soa_alignment;
  if (stride > 2147483647u) {
    throw argument_error(parloop::detail::format(
        "a set of {} elements is too large to keep its dats component by component (the stride, {}, is past the "
        "int range): open the runtime with PARLOOP_DAT_LAYOUT=aos",
        elements, stride));
  }
  return stride;
}

// Copies `elements` elements of `dim` scalars of `scalar` bytes from element-major `from` to
// component-major `to` (whose components are `stride` elements apart), or back.
template <std::size_t Scalar>
void transpose_scalars(const unsigned char* from, unsigned char* to, std::size_t elements, std::size_t dim,
                       std::size_t stride, bool to_components) {
  for (std::size_t e = 0; e < elements; ++e) {
    for (std::size_t k = 0; k < dim; ++k) {
      const std::size_t by_element = (e * dim + k) * Scalar, by_component = (k * stride + e) * Scalar;
      std::memcpy(to + (to_components ? by_component : by_element), from + (to_components ? by_element : by_component),
                  Scalar);
    }
  }
}

inline void transpose(const void* from, void* to, std::size_t elements, std::size_t dim, std::size_t scalar,
                      std::size_t stride, bool to_components) {
  const auto* f = static_cast<const unsigned char*>(from);
  auto* t = static_cast<unsigned char*>(to);
  if (scalar == 8)
    transpose_scalars<8>(f, t, elements, dim, stride, to_components);
  else
    transpose_scalars<4>(f, t, elements, dim, stride, to_components);
}

}  // namespace detail
}  // namespace parloop
