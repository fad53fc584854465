// SPDX-License-Identifier: MIT
// The CUDA component's headers, compiled by a consumer: the backend, which the component's
// macro brings in through parloop.hpp.
#include <parloop/parloop.hpp>

#if !PARLOOP_HAVE_CUDA
#error "parloop::cuda does not define PARLOOP_HAVE_CUDA"
#endif

bool cuda_usable() {
  const parloop::backend_status s = parloop::backends().front();
  return s.kind == parloop::backend_kind::cuda && s.available;
}
