#pragma once

// The backend (graph) API's descriptors: typed bags of attributes that cudnnBackendSetAttribute
// fills, cudnnBackendFinalize checks (and completes with what cuDNN derives: heuristics results,
// workspace sizes, the ops an execution plan stands for), and cudnnBackendGetAttribute reads.
// Pure data: no session, no CUDA.

#include <cudnn.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "types.h"

namespace seer::cudnn::backend {

struct Descriptor;
// A descriptor stored inside another one is a copy taken when it was set (cuDNN copies too: the
// program may destroy or reuse the original).
using Snapshot = std::shared_ptr<const Descriptor>;

struct Value {
  cudnnBackendAttributeType_t type = CUDNN_TYPE_INT64;
  int64_t count = 0;
  std::vector<unsigned char> bytes;   // count elements of element_size(type)
  std::vector<Snapshot> descriptors;  // CUDNN_TYPE_BACKEND_DESCRIPTOR
};

struct Descriptor {
  int type = 0;  // cudnnBackendDescriptorType_t (9.26 has more than the headers Seer builds with)
  bool finalized = false;
  std::map<int, Value> attributes;  // by cudnnBackendAttributeName_t
  // Execution plans: what running the plan enqueues, decided at finalize.
  std::vector<LibraryOp> ops;

  bool has(int name) const { return attributes.count(name) != 0; }
  const Value* find(int name) const;
  // Tolerant readers: nullopt / empty when unset or stored with another element size.
  std::optional<int64_t> int64(int name) const;
  std::vector<int64_t> int64s(int name) const;
  std::optional<int32_t> int32(int name) const;  // 4-byte values: enums, INT32, DATA_TYPE
  std::optional<bool> boolean(int name) const;
  Snapshot descriptor(int name) const;
  const std::vector<Snapshot>& descriptors(int name) const;
};

// Bytes of one element of an attribute type; 0 for a type cuDNN does not define.
int64_t element_size(int attribute_type);

// The live descriptors of the process (what cudnnBackendCreateDescriptor handed out).
Descriptor* create(int type);  // nullptr when cuDNN 9.26 has no such descriptor type
bool destroy(void* d);         // false when `d` is not live
Descriptor* live(void* d);

cudnnStatus_t set_attribute(Descriptor& d, int name, int type, int64_t count, const void* elements);
cudnnStatus_t get_attribute(const Descriptor& d, int name, int type, int64_t requested,
                            int64_t* count, void* elements);
cudnnStatus_t finalize(Descriptor& d);

// Descriptor types and attributes of cuDNN 9.26 that the 9.19 headers lack.
inline constexpr int kDescriptorTypeCount = 51;  // CUDNN_BACKEND_OPERATION_ROPE_BWD_DESCRIPTOR + 1
inline constexpr int kSdpaFwdDescriptor = 41;
inline constexpr int kSdpaBwdDescriptor = 43;
inline constexpr int kDiagonalBandMaskDescriptor = 44;
inline constexpr int kSoftmaxDescriptor = 45;
inline constexpr int kAttrTypeCount = 33;  // CUDNN_TYPE_OPERATIONGRAPH_MODE + 1
// The number of engines each operation graph offers.
inline constexpr int64_t kEngineCount = 1;

}  // namespace seer::cudnn::backend
