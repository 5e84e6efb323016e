#pragma once

#include <nccl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core.h"
#include "datatype_bytes.h"

namespace seer::nccl {

// What an ncclComm_t points to.
struct Comm {
  uint64_t id = 0;  // session communicator id; 0 while initialization is pending
  int nranks = 0;
  int rank = 0;
  int device = 0;
  bool nonblocking = false;
  uint64_t pending_request = 0;  // async init not yet collected
  int pending_slot = 0;
  ncclResult_t async_error = ncclSuccess;
};

// One deferred call inside ncclGroupStart/End.
struct Deferred {
  enum Kind { kInit, kSplit, kColl } kind = kColl;
  Comm* comm = nullptr;       // the communicator the call fills in (init/split) or uses (coll)
  Comm* parent = nullptr;     // split
  ncclComm_t* out = nullptr;  // split: where the new handle goes
  wire::CommInit init;
  wire::CommSplit split;
  const void* stream = nullptr;
  wire::CollPart part;
  const void* sendbuff = nullptr;  // coll: the program's buffers (payload, PAYLOAD.md)
  void* recvbuff = nullptr;
};

bool valid(const Comm* c);
Comm* new_comm();
void forget(Comm* c);

// Group state of the calling thread; calls outside a group run as a group of one.
int& group_depth();
std::vector<Deferred>& deferred();
ncclResult_t run_group(client::ThreadState& ts);
// Collects a non-blocking init's answer (blocks until every rank joined).
ncclResult_t finish_pending(client::ThreadState& ts, Comm* c);

// Small collectives carry the program's bytes: reads each op's input and registers its output
// (every input of the group is read before any output is registered). Send/recv parts carry
// bytes only while the group's sends (receives) on their communicator total at most the limit.
void attach_payloads(std::vector<Deferred>& calls);
// The scalar of a ncclRedOpCreatePreMulSum operation, for the payload.
void remember_premul_scalar(ncclRedOp_t op, const void* scalar, ncclDataType_t type,
                            ncclScalarResidence_t residence);
std::string premul_scalar(int op, ncclDataType_t type);

inline int type_bytes(ncclDataType_t t) { return static_cast<int>(datatype_bytes(t)); }
const char* error_string(ncclResult_t r);

}  // namespace seer::nccl
