// Kernel-database files (runtime/include/seer/runtime/kernel_db.h) as `seer run --kernel-db` and
// `seer db` load them: any bytes either load or throw KernelDbError; what loads has the
// properties of kernel_db_checks.h.

#include <cstdint>
#include <string>

#include "kernel_db_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  seer::rt::KernelDb db;
  try {
    db = seer::rt::KernelDb::parse(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const seer::rt::KernelDbError&) {
    return 0;
  }
  seer::fuzz::check_loaded(db);
  return 0;
}
