// SPDX-License-Identifier: MIT
// A made-up NVIDIA driver, built as libcuda.so.1 in a folder of its own: a test that puts that
// folder first on LD_LIBRARY_PATH opens "CUDA devices" through Runtime::open on a machine
// without a GPU. It has two sm_90 devices, named "parloop test GPU 0" and "... 1", whose
// contexts, streams and memory are plain host memory; it loads no module and launches nothing.
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
constexpr int device_count = 2;
int context_of[device_count];  // each device's primary context is the address of its slot
int stream;
}  // namespace

extern "C" {

CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }
CUresult cuGetErrorString(CUresult, const char** text) {
  *text = "not supported by the test driver";
  return CUDA_SUCCESS;
}
CUresult cuDriverGetVersion(int* version) {
  *version = 13000;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int* count) {
  *count = device_count;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (ordinal < 0 || ordinal >= device_count) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char* name, int length, CUdevice device) {
  std::snprintf(name, static_cast<std::size_t>(length), "parloop test GPU %d", device);
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice) {
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *value = 49152; break;
    default: return CUDA_ERROR_NOT_SUPPORTED;
  }
  return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem(std::size_t* bytes, CUdevice) {
  *bytes = std::size_t{1} << 32;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  if (device < 0 || device >= device_count) return CUDA_ERROR_INVALID_DEVICE;
  *context = reinterpret_cast<CUcontext>(&context_of[device]);
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult cuCtxSynchronize() { return CUDA_SUCCESS; }
CUresult cuStreamCreate(CUstream* s, unsigned int) {
  *s = reinterpret_cast<CUstream>(&stream);
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream) { return CUDA_SUCCESS; }
CUresult cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }
CUresult cuMemAlloc(CUdeviceptr* p, std::size_t bytes) {
  *p = reinterpret_cast<CUdeviceptr>(std::malloc(bytes));
  return *p == 0 ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
}
CUresult cuMemFree(CUdeviceptr p) {
  std::free(reinterpret_cast<void*>(p));
  return CUDA_SUCCESS;
}
CUresult cuMemHostAlloc(void** p, std::size_t bytes, unsigned int) {
  *p = std::malloc(bytes);
  return *p == nullptr ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
}
CUresult cuMemFreeHost(void* p) {
  std::free(p);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoD(CUdeviceptr to, const void* from, std::size_t bytes) {
  std::memcpy(reinterpret_cast<void*>(to), from, bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoH(void* to, CUdeviceptr from, std::size_t bytes) {
  std::memcpy(to, reinterpret_cast<const void*>(from), bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoDAsync(CUdeviceptr to, const void* from, std::size_t bytes, CUstream) {
  return cuMemcpyHtoD(to, from, bytes);
}
CUresult cuMemcpyDtoHAsync(void* to, CUdeviceptr from, std::size_t bytes, CUstream) {
  return cuMemcpyDtoH(to, from, bytes);
}
CUresult cuModuleLoadData(CUmodule*, const void*) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuModuleUnload(CUmodule) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuModuleGetFunction(CUfunction*, CUmodule, const char*) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuFuncGetAttribute(int*, CUfunction_attribute, CUfunction) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuLaunchKernel(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                        unsigned int, CUstream, void**, void**) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

}  // extern "C"
