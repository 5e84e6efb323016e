#pragma once

namespace seer::client {

// Whether `pc` lies in the code of a shared library that replaces malloc (a preloaded jemalloc or
// tcmalloc). Its mutexes guard the heap, not the program's work: locking one after another
// thread released it is no hand-off of virtual time (THREADS.md), and treating it as one would
// make a modeled run depend on which thread reached the heap first in real time.
bool in_allocator_code(const void* pc);

}  // namespace seer::client
