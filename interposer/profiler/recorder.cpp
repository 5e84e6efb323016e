// seer profile's recorder, loaded into a program that runs on a real GPU with NVIDIA's own
// libraries. The driver loads it through CUDA_INJECTION64_PATH and calls InitializeInjection
// during cuInit. It records kernel, memcpy and memset activities with CUPTI, and what the wrappers
// (cublas_calls.cpp, cudnn_calls.cpp, launch_args.cpp) mark: library calls and launches' size
// arguments, tied to their kernels by external correlation ids. Lines go to
// $SEER_PROFILE_DIR/records-PID.tsv as buffers complete and at exit (format: README.md). It links
// nothing of Seer's: CUPTI is opened by name at run time.

#include "recorder.h"

#include <cupti_activity.h>
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

namespace {

using RegisterCallbacksFn = CUptiResult (*)(CUpti_BuffersCallbackRequestFunc,
                                            CUpti_BuffersCallbackCompleteFunc);
using EnableFn = CUptiResult (*)(CUpti_ActivityKind);
using FlushAllFn = CUptiResult (*)(uint32_t);
using NextRecordFn = CUptiResult (*)(uint8_t*, size_t, CUpti_Activity**);
using PushExternalFn = CUptiResult (*)(CUpti_ExternalCorrelationKind, uint64_t);
using PopExternalFn = CUptiResult (*)(CUpti_ExternalCorrelationKind, uint64_t*);
using DeviceGetNameFn = int (*)(char*, int, int);

struct Cupti {
  RegisterCallbacksFn register_callbacks = nullptr;
  EnableFn enable = nullptr;
  FlushAllFn flush_all = nullptr;
  NextRecordFn next_record = nullptr;
  PushExternalFn push_external = nullptr;
  PopExternalFn pop_external = nullptr;
};

// Library calls and launches with size arguments are marked with external correlation ids of this
// kind, from one id space (Kineto uses CUSTOM0/1).
constexpr CUpti_ExternalCorrelationKind kLibraryKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;

constexpr size_t kBufferBytes = 8u << 20;

std::mutex g_mu;
FILE* g_out = nullptr;
Cupti g_cupti;
std::set<uint32_t> g_devices;
std::atomic<bool> g_active{false};
std::atomic<uint64_t> g_next_library_call{1};

void write_error(const std::string& message) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_out) {
    std::fprintf(g_out, "error\t%s\n", message.c_str());
    std::fflush(g_out);
  }
  std::fprintf(stderr, "seer profile: %s\n", message.c_str());
}

// Kernel names are mangled C++ or a library's own text; tabs and line ends would break a line.
std::string one_field(const char* s) {
  std::string out = s ? s : "";
  for (char& c : out) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

const char* copy_kind(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "PtoP";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "HtoH";
    default:
      return "other";
  }
}

// Only the fields every kernel record version since 10 has at the same offsets (the kind,
// times, device, grid, block, dynamic shared memory and name) are read.
void write_record(const CUpti_Activity* r) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
      g_devices.insert(k->deviceId);
      std::fprintf(g_out, "kernel\t%u\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%llu\t%u\t%s\n", k->deviceId,
                   k->gridX, k->gridY, k->gridZ, k->blockX, k->blockY, k->blockZ,
                   k->dynamicSharedMemory, static_cast<unsigned long long>(k->end - k->start),
                   k->correlationId, one_field(k->name).c_str());
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(r);
      g_devices.insert(m->deviceId);
      std::fprintf(g_out, "memcpy\t%u\t%s\t%llu\t%llu\n", m->deviceId, copy_kind(m->copyKind),
                   static_cast<unsigned long long>(m->bytes),
                   static_cast<unsigned long long>(m->end - m->start));
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
      g_devices.insert(m->deviceId);
      std::fprintf(g_out, "memset\t%u\t%llu\t%llu\n", m->deviceId,
                   static_cast<unsigned long long>(m->bytes),
                   static_cast<unsigned long long>(m->end - m->start));
      break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      const auto* x = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(r);
      if (x->externalKind == kLibraryKind) {
        std::fprintf(g_out, "external\t%llu\t%u\n", static_cast<unsigned long long>(x->externalId),
                     x->correlationId);
      }
      break;
    }
    default:
      break;
  }
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  {
    std::lock_guard<std::mutex> lock(g_mu);
    CUpti_Activity* record = nullptr;
    while (g_out && g_cupti.next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
      write_record(record);
    }
    if (g_out) std::fflush(g_out);
  }
  std::free(buffer);
}

void finish() {
  if (!g_cupti.flush_all) return;
  g_active.store(false, std::memory_order_release);
  g_cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_out) return;
  auto device_name = reinterpret_cast<DeviceGetNameFn>(dlsym(RTLD_DEFAULT, "cuDeviceGetName"));
  for (uint32_t d : g_devices) {
    char name[256] = {};
    if (device_name && device_name(name, sizeof name - 1, static_cast<int>(d)) == 0) {
      std::fprintf(g_out, "device\t%u\t%s\n", d, one_field(name).c_str());
    }
  }
  std::fprintf(g_out, "end\n");
  std::fclose(g_out);
  g_out = nullptr;
}

void* open_cupti() {
  if (void* h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_GLOBAL)) return h;
  const char* path = std::getenv("SEER_PROFILE_CUPTI");
  if (path && *path) return dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  return nullptr;
}

template <typename Fn>
bool resolve(void* lib, const char* name, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(lib, name));
  return *out != nullptr;
}

int start() {
  static std::once_flag once;
  static int result = 0;
  std::call_once(once, [] {
    const char* dir = std::getenv("SEER_PROFILE_DIR");
    if (!dir || !*dir) return;
    const std::string path = std::string(dir) + "/records-" + std::to_string(getpid()) + ".tsv";
    g_out = std::fopen(path.c_str(), "a");
    if (!g_out) {
      std::fprintf(stderr, "seer profile: cannot write %s: %s\n", path.c_str(),
                   std::strerror(errno));
      return;
    }
    void* lib = open_cupti();
    if (!lib) {
      write_error(std::string("cannot load CUPTI (libcupti.so.13): ") + dlerror());
      return;
    }
    Cupti c;
    if (!resolve(lib, "cuptiActivityRegisterCallbacks", &c.register_callbacks) ||
        !resolve(lib, "cuptiActivityEnable", &c.enable) ||
        !resolve(lib, "cuptiActivityFlushAll", &c.flush_all) ||
        !resolve(lib, "cuptiActivityGetNextRecord", &c.next_record) ||
        !resolve(lib, "cuptiActivityPushExternalCorrelationId", &c.push_external) ||
        !resolve(lib, "cuptiActivityPopExternalCorrelationId", &c.pop_external)) {
      write_error("the CUPTI library lacks the activity API");
      return;
    }
    if (CUptiResult r = c.register_callbacks(buffer_requested, buffer_completed)) {
      write_error("cuptiActivityRegisterCallbacks failed: " + std::to_string(r));
      return;
    }
    for (CUpti_ActivityKind kind :
         {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
          CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION}) {
      if (CUptiResult r = c.enable(kind)) {
        write_error("cuptiActivityEnable(" + std::to_string(kind) +
                    ") failed: " + std::to_string(r));
        return;
      }
    }
    g_cupti = c;
    std::atexit(finish);
    g_active.store(true, std::memory_order_release);
    seer::profiler::start_triton_launches(lib);
    result = 1;
  });
  return result;
}

}  // namespace

namespace seer::profiler {

uint64_t begin_library_call(const std::string& label, const std::string& params) {
  return begin_library_call(std::vector<LibraryOpName>{{label, params}});
}

uint64_t begin_library_call(const std::vector<LibraryOpName>& ops) {
  if (ops.empty() || !g_active.load(std::memory_order_acquire)) return 0;
  const uint64_t id = g_next_library_call.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (!g_out) return 0;
    for (const LibraryOpName& op : ops) {
      std::fprintf(g_out, "library\t%llu\t%s\t%s\n", static_cast<unsigned long long>(id),
                   one_field(op.label.c_str()).c_str(), one_field(op.params.c_str()).c_str());
    }
  }
  g_cupti.push_external(kLibraryKind, id);
  return id;
}

}  // namespace seer::profiler

namespace {

// Writes an `args` line under a new id (g_mu held); 0 when not recording.
uint64_t write_args_locked(const uint64_t* values, int n) {
  if (!g_out) return 0;
  const uint64_t id = g_next_library_call.fetch_add(1, std::memory_order_relaxed);
  std::fprintf(g_out, "args\t%llu\t", static_cast<unsigned long long>(id));
  for (int i = 0; i < n; ++i) {
    std::fprintf(g_out, i ? " %llu" : "%llu", static_cast<unsigned long long>(values[i]));
  }
  std::fputc('\n', g_out);
  return id;
}

}  // namespace

namespace seer::profiler {

uint64_t begin_launch_args(const uint64_t* values, int n) {
  if (n <= 0 || !g_active.load(std::memory_order_acquire)) return 0;
  uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    id = write_args_locked(values, n);
  }
  if (id) g_cupti.push_external(kLibraryKind, id);
  return id;
}

void record_launch_sizes(uint32_t correlation, const uint64_t* values, int n) {
  if (n <= 0 || !g_active.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(g_mu);
  // The correlation id is known at the launch: no external id need be pushed around it.
  if (const uint64_t id = write_args_locked(values, n)) {
    std::fprintf(g_out, "external\t%llu\t%u\n", static_cast<unsigned long long>(id), correlation);
  }
}

void end_library_call(uint64_t id) {
  if (id == 0) return;
  uint64_t popped = 0;
  g_cupti.pop_external(kLibraryKind, &popped);
}

}  // namespace seer::profiler

// The CUDA driver's injection entry point (CUDA_INJECTION64_PATH); 1 means success.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) { return start(); }
