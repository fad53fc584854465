// SPDX-License-Identifier: MIT
// The CUDA driver API, loaded at run time from libcuda.so.1: a program built with the CUDA
// backend starts on a machine without an NVIDIA driver and reports the backend unavailable.
#pragma once

#include <cuda.h>

#include <string>

#include "parloop/backend/cuda/library.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

// The name a cuda.h function is exported under (cuMemAlloc is cuMemAlloc_v2).
#define PARLOOP_CU_SYMBOL_(name) #name
#define PARLOOP_CU_SYMBOL(name) PARLOOP_CU_SYMBOL_(name)

namespace parloop::backend::cuda {

class driver {
 public:
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuGetErrorString) get_error_string = nullptr;
  decltype(&::cuDeviceGetCount) device_get_count = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&::cuDeviceGetName) device_get_name = nullptr;
  decltype(&::cuDeviceTotalMem) device_total_mem = nullptr;
  decltype(&::cuDriverGetVersion) driver_get_version = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease) primary_ctx_release = nullptr;
  decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&::cuCtxSynchronize) ctx_synchronize = nullptr;
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuFuncGetAttribute) func_get_attribute = nullptr;
  decltype(&::cuMemAlloc) mem_alloc = nullptr;
  decltype(&::cuMemFree) mem_free = nullptr;
  decltype(&::cuMemcpyHtoD) memcpy_htod = nullptr;
  decltype(&::cuMemcpyDtoH) memcpy_dtoh = nullptr;
  decltype(&::cuMemcpyHtoDAsync) memcpy_htod_async = nullptr;
  decltype(&::cuMemcpyDtoHAsync) memcpy_dtoh_async = nullptr;
  decltype(&::cuMemHostAlloc) mem_host_alloc = nullptr;
  decltype(&::cuMemFreeHost) mem_free_host = nullptr;
  decltype(&::cuStreamCreate) stream_create = nullptr;
  decltype(&::cuStreamDestroy) stream_destroy = nullptr;
  decltype(&::cuStreamSynchronize) stream_synchronize = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;

  // The driver, loaded and initialised on first use; throws backend_unavailable, with the
  // reason, if there is none.
  static const driver& get() {
    static const driver instance;
    if (!instance.library_.reason().empty()) throw backend_unavailable("CUDA: " + instance.library_.reason());
    return instance;
  }

  // Throws if a driver call failed, naming the call and the driver's message.
  void check(CUresult status, const char* call) const {
    if (status == CUDA_SUCCESS) return;
    throw error(parloop::detail::format("CUDA: {} failed: {} ({})", call, message(status), static_cast<int>(status)));
  }

 private:
  driver() : library_({"libcuda.so.1"}, "the NVIDIA driver (libcuda.so.1) was not found") {
    library_.load(init, PARLOOP_CU_SYMBOL(cuInit));
    library_.load(get_error_string, PARLOOP_CU_SYMBOL(cuGetErrorString));
    library_.load(device_get_count, PARLOOP_CU_SYMBOL(cuDeviceGetCount));
    library_.load(device_get, PARLOOP_CU_SYMBOL(cuDeviceGet));
    library_.load(device_get_attribute, PARLOOP_CU_SYMBOL(cuDeviceGetAttribute));
    library_.load(device_get_name, PARLOOP_CU_SYMBOL(cuDeviceGetName));
    library_.load(device_total_mem, PARLOOP_CU_SYMBOL(cuDeviceTotalMem));
    library_.load(driver_get_version, PARLOOP_CU_SYMBOL(cuDriverGetVersion));
    library_.load(primary_ctx_retain, PARLOOP_CU_SYMBOL(cuDevicePrimaryCtxRetain));
    library_.load(primary_ctx_release, PARLOOP_CU_SYMBOL(cuDevicePrimaryCtxRelease));
    library_.load(ctx_set_current, PARLOOP_CU_SYMBOL(cuCtxSetCurrent));
    library_.load(ctx_synchronize, PARLOOP_CU_SYMBOL(cuCtxSynchronize));
    library_.load(module_load_data, PARLOOP_CU_SYMBOL(cuModuleLoadData));
    library_.load(module_unload, PARLOOP_CU_SYMBOL(cuModuleUnload));
    library_.load(module_get_function, PARLOOP_CU_SYMBOL(cuModuleGetFunction));
    library_.load(func_get_attribute, PARLOOP_CU_SYMBOL(cuFuncGetAttribute));
    library_.load(mem_alloc, PARLOOP_CU_SYMBOL(cuMemAlloc));
    library_.load(mem_free, PARLOOP_CU_SYMBOL(cuMemFree));
    library_.load(memcpy_htod, PARLOOP_CU_SYMBOL(cuMemcpyHtoD));
    library_.load(memcpy_dtoh, PARLOOP_CU_SYMBOL(cuMemcpyDtoH));
    library_.load(memcpy_htod_async, PARLOOP_CU_SYMBOL(cuMemcpyHtoDAsync));
    library_.load(memcpy_dtoh_async, PARLOOP_CU_SYMBOL(cuMemcpyDtoHAsync));
    library_.load(mem_host_alloc, PARLOOP_CU_SYMBOL(cuMemHostAlloc));
    library_.load(mem_free_host, PARLOOP_CU_SYMBOL(cuMemFreeHost));
    library_.load(stream_create, PARLOOP_CU_SYMBOL(cuStreamCreate));
    library_.load(stream_destroy, PARLOOP_CU_SYMBOL(cuStreamDestroy));
    library_.load(stream_synchronize, PARLOOP_CU_SYMBOL(cuStreamSynchronize));
    library_.load(launch_kernel, PARLOOP_CU_SYMBOL(cuLaunchKernel));
    if (!library_.reason().empty()) return;
    if (const CUresult status = init(0); status != CUDA_SUCCESS) library_.fail("cuInit failed: " + message(status));
  }

  std::string message(CUresult status) const {
    const char* text = nullptr;
    get_error_string(status, &text);
    return text != nullptr ? text : "unknown error";
  }

  shared_library library_;
};

}  // namespace parloop::backend::cuda
