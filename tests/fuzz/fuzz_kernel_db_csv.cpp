// CSV import of kernel databases (`seer db import`, KernelDb::from_csv): any text either imports
// or throws KernelDbError; what imports has the properties of kernel_db_checks.h.

#include <cstdint>
#include <string>

#include "kernel_db_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  seer::rt::KernelDb db;
  try {
    db = seer::rt::KernelDb::from_csv(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const seer::rt::KernelDbError&) {
    return 0;
  }
  seer::fuzz::check_loaded(db);
  return 0;
}
