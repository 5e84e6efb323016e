// Initialization and versions, the static-runtime trip-wire (cuGetExportTable) and the log
// callbacks c10's CUDAErrorLogCapture registers.

#include "api.h"
#include "static_runtime_stop.h"

using namespace seer::driver;

// CUDA 13.2: PyTorch 2.15's wheel is built against it and checks the driver is not older.
static constexpr int kDriverVersion = 13020;

SEER_CU_API CUresult cuInit(unsigned flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  CUresult err = CUDA_SUCCESS;
  return ready(err) ? CUDA_SUCCESS : err;
}

SEER_CU_API CUresult cuDriverGetVersion(int* version) {
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  *version = kDriverVersion;
  return CUDA_SUCCESS;
}

// A CUDA runtime (or a library embedding one) needs NVIDIA's private tables: it is stopped.
// NVRTC also asks but carries on without them.
SEER_CU_API CUresult cuGetExportTable(const void** table, const CUuuid* /*id*/) {
  void* caller = __builtin_return_address(0);
  if (!tolerates_missing_export_table(caller)) stop_static_runtime("cuGetExportTable", caller);
  if (table) *table = nullptr;
  return CUDA_ERROR_NOT_SUPPORTED;
}

SEER_CU_API CUresult cuLogsRegisterCallback(CUlogsCallback callback, void* /*user_data*/,
                                            CUlogsCallbackHandle* handle) {
  if (!callback) return CUDA_ERROR_INVALID_VALUE;
  static int token;
  if (handle) *handle = reinterpret_cast<CUlogsCallbackHandle>(&token);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuLogsUnregisterCallback(CUlogsCallbackHandle /*handle*/) {
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuLogsCurrent(CUlogIterator* iterator, unsigned /*flags*/) {
  if (!iterator) return CUDA_ERROR_INVALID_VALUE;
  *iterator = 0;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuLogsDumpToMemory(CUlogIterator* /*iterator*/, char* buffer, size_t* size,
                                        unsigned /*flags*/) {
  if (!buffer || !size) return CUDA_ERROR_INVALID_VALUE;
  if (*size > 0) buffer[0] = '\0';
  *size = 0;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuProfilerStart(void) { return CUDA_SUCCESS; }
SEER_CU_API CUresult cuProfilerStop(void) { return CUDA_SUCCESS; }
