// The engine's side of compute/communication interference (interference.h, INTERFERENCE.md):
// collectives register what they take from their GPU while they run; compute ops starting
// beside them are timed on the GPU that is left; a collective starting beside memory-bound
// compute is stretched by the HBM bandwidth both need.

#include <algorithm>

#include "seer/simcore/engine.h"

namespace seer::sim {

Time Engine::contended_duration(const Op& op, TimeSource& source, Time alone,
                                Time& interference) const {
  const Gpu& g = gpus_[op.gpu];
  const GpuSpec spec = contended_spec(g.spec, g.comm_load);
  Time slow = alone;
  if (source == TimeSource::kDatabase) {
    // Measured alone: scaled by the models' ratio.
    TimeSource model = TimeSource::kNone;
    const Time model_alone = duration_of(op, model, g.spec, false);
    const Time model_slow = duration_of(op, model, spec, false);
    if (model_alone > 0) {
      slow = static_cast<Time>(static_cast<double>(alone) * static_cast<double>(model_slow) /
                               static_cast<double>(model_alone));
    }
  } else {
    TimeSource same = TimeSource::kNone;
    slow = duration_of(op, same, spec);
  }
  slow = std::max(slow, alone);
  interference = slow - alone;
  return slow;
}

double Engine::hbm_bytes_of(const Op& op, const GpuSpec& spec) const {
  const OpDesc& d = op.desc;
  switch (d.kind) {
    case OpKind::kKernel: {
      if (const TritonKernel* t = triton_kernel(d.triton)) {
        return triton_bytes(*t, d.sizes, d.nsizes, d.geometry.blocks());
      }
      if (d.kernel < aten_kernels_.size()) {
        const AtenKernel& a = aten_kernels_[d.kernel];
        if (a.family != AtenFamily::kNone && (d.nsizes > 0 || !a.needs_sizes)) {
          if (auto bytes = aten_kernel_bytes(a, d.geometry, d.sizes, d.nsizes)) return *bytes;
        }
      }
      return 0;  // unknown traffic: the generic model says nothing of it
    }
    case OpKind::kLibrary:
      return library_hbm_bytes(spec, d);
    case OpKind::kMemset:
      return static_cast<double>(d.bytes);
    case OpKind::kCopyD2D:
      return 2.0 * static_cast<double>(d.bytes);
    default:
      return 0;
  }
}

void Engine::add_comm_load(OpId id, const CommLoad& load) {
  Op& op = ops_[id];
  CommLoad& total = gpus_[op.gpu].comm_load;
  op.load = load;
  total.channels += load.channels;
  total.hbm_bytes_per_s += load.hbm_bytes_per_s;
}

void Engine::remove_comm_load(OpId id) {
  Op& op = ops_[id];
  CommLoad& total = gpus_[op.gpu].comm_load;
  total.channels = std::max(0, total.channels - op.load.channels);
  total.hbm_bytes_per_s -= op.load.hbm_bytes_per_s;
  // Rounding leftovers of the sum once every collective has left.
  if (total.channels == 0 && total.hbm_bytes_per_s < 1.0) total.hbm_bytes_per_s = 0;
  op.load = CommLoad{};
}

double Engine::collective_stretch_at_start(const std::vector<OpId>& ops, double rate) const {
  double stretch = 1.0;
  for (OpId o : ops) {
    const Gpu& g = gpus_[ops_[o].gpu];
    if (g.running_compute == UINT32_MAX) continue;
    const Op& compute = ops_[g.running_compute];
    if (compute.end <= now_) continue;
    stretch = std::max(stretch, collective_stretch(g.spec, rate, compute.hbm_rate));
  }
  return stretch;
}

}  // namespace seer::sim
