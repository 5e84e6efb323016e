// Flow-model throughput on a 1,024-GPU cluster: 128 nodes x 8 GPUs, 8 rail NICs per node,
// rail-optimized 2-tier fat-tree (32 NIC ports per leaf, non-blocking), with ~10,000 concurrent
// flows. Events are flow activations (latency over, joins sharing) and completions.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "seer/netsim/cluster_fabric.h"
#include "seer/netsim/flow_model.h"
#include "seer/netsim/hash.h"
#include "seer/netsim/router.h"

namespace seer::net {
namespace {

constexpr int kConcurrentFlows = 10'000;

ClusterShape dgx_h100_cluster_128() {
  ClusterShape shape;
  shape.nodes = 128;
  shape.gpus_per_node = 8;
  shape.nvlink_bw_per_gpu = 450e9;
  shape.nvswitch_latency = 700;
  shape.pcie_bw = 64e9;
  shape.pcie_latency = 500;
  shape.nics_per_node = 8;
  shape.nic_bw = 50e9;
  shape.nic_latency = 750;
  shape.hosts_per_leaf = 32;
  shape.switch_hop_latency = 200;
  return shape;
}

enum class Traffic {
  RailAligned,  // GPU g of one node to GPU g of another: the pattern NCCL uses on rail fabrics
  Uniform,      // any GPU to any GPU of another node: one sharing component spans the cluster
};

// A fixed pool of routed GPU-to-GPU paths to draw flows from, so routing is not timed.
std::vector<const Path*> path_pool(const ClusterFabric& fabric, Router& router, Traffic traffic,
                                   std::mt19937_64& random) {
  std::vector<const Path*> pool;
  const int nodes = fabric.node_count();
  const int gpus = fabric.gpus_per_node();
  for (int i = 0; i < 4 * kConcurrentFlows; ++i) {
    const int src_node = static_cast<int>(random() % nodes);
    const int dst_node = (src_node + 1 + static_cast<int>(random() % (nodes - 1))) % nodes;
    const int src_gpu = static_cast<int>(random() % gpus);
    const int dst_gpu =
        traffic == Traffic::RailAligned ? src_gpu : static_cast<int>(random() % gpus);
    pool.push_back(&router.route(fabric.gpu(src_node, src_gpu), fabric.gpu(dst_node, dst_gpu),
                                 mix64(static_cast<std::uint64_t>(i))));
  }
  return pool;
}

double random_bytes(std::mt19937_64& random) {
  return 1e6 * static_cast<double>(1 + random() % 64);  // 1 - 64 MB
}

// Average flows re-solved, and of those the ones whose rate changed, per solve.
void report_solver_work(benchmark::State& state, const FlowModel::Counters& before,
                        const FlowModel::Counters& after) {
  const double solves =
      static_cast<double>(std::max<std::uint64_t>(1, after.solves - before.solves));
  state.counters["flows_per_solve"] =
      static_cast<double>(after.flows_solved - before.flows_solved) / solves;
  state.counters["changed_per_solve"] =
      static_cast<double>(after.rate_changes - before.rate_changes) / solves;
}

// One step of steady churn: the events of the next instant, each completion replaced by a new
// flow. Returns the events (completions and activations).
std::int64_t churn_step(FlowModel& model, const std::vector<const Path*>& pool,
                        std::mt19937_64& random) {
  const Time now = *model.next_event_time();
  const int waiting = model.waiting_flow_count();
  const auto done = model.advance_to(now);
  const std::int64_t activated = waiting - model.waiting_flow_count();
  for (std::size_t i = 0; i < done.size(); ++i) {
    model.start_flow(now, *pool[random() % pool.size()], random_bytes(random));
  }
  return static_cast<std::int64_t>(done.size()) + activated;
}

// Steady churn: every completion is replaced by a new flow, keeping ~10,000 in the network.
// One iteration processes the events of one instant. The flows start together, so the first
// instants bunch events; the churn runs untimed for 20,000 events, until they have been replaced,
// so that the timed part sees steady unsynchronized churn whatever the run length.
// Arguments: traffic, tolerance in thousandths (0: exact).
void BM_SteadyChurn(benchmark::State& state) {
  const auto traffic = static_cast<Traffic>(state.range(0));
  const double tolerance = static_cast<double>(state.range(1)) / 1000;
  const ClusterFabric fabric(dgx_h100_cluster_128());
  Router router(fabric.topology());
  std::mt19937_64 random(7);
  const auto pool = path_pool(fabric, router, traffic, random);
  FlowModel model(fabric.topology(), FlowModelOptions{.tolerance = tolerance});
  for (int i = 0; i < kConcurrentFlows; ++i) {
    model.start_flow(0, *pool[random() % pool.size()], random_bytes(random));
  }
  model.advance_to(*model.next_event_time());  // all activate at the same instant
  for (std::int64_t warm = 0; warm < 2 * kConcurrentFlows;) warm += churn_step(model, pool, random);

  std::int64_t events = 0;
  const auto before = model.counters();
  for (auto _ : state) events += churn_step(model, pool, random);
  const auto after = model.counters();
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["flows"] = model.active_flow_count() + model.waiting_flow_count();
  report_solver_work(state, before, after);
  state.SetLabel(
      std::string(traffic == Traffic::Uniform ? "uniform" : "rail-aligned") +
      (tolerance > 0 ? ", tolerance " + std::to_string(state.range(1)) + "e-3" : ", exact"));
}
BENCHMARK(BM_SteadyChurn)->ArgsProduct({{0, 1}, {0, 10, 30, 100}})->Unit(benchmark::kMicrosecond);

// Flow completion times of the steady churn under a faster setting against the exact model. Each
// of the 10,000 streams sends its own fixed sequence of flows, one after another, so both models
// run the same flows whatever order they finish in. Reports relative completion-time errors of
// every flow but each stream's first (those start in one synchronized burst). Arguments: traffic,
// tolerance in thousandths.
std::vector<Time> stream_completion_times(const ClusterFabric& fabric,
                                          const std::vector<const Path*>& pool,
                                          FlowModelOptions options, int flows_per_stream,
                                          std::int64_t* events) {
  FlowModel model(fabric.topology(), options);
  std::vector<std::mt19937_64> streams;
  for (int k = 0; k < kConcurrentFlows; ++k) streams.emplace_back(1000 + k);
  std::vector<std::pair<int, int>> flow_of;  // by FlowId: (stream, index in the stream)
  std::vector<Time> started;
  std::vector<Time> fct(static_cast<std::size_t>(kConcurrentFlows) * flows_per_stream, -1);
  auto send = [&](Time now, int stream, int index) {
    std::mt19937_64& random = streams[stream];
    const Path& path = *pool[random() % pool.size()];
    const FlowId id = model.start_flow(now, path, random_bytes(random));
    flow_of.resize(id + 1);
    started.resize(id + 1);
    flow_of[id] = {stream, index};
    started[id] = now;
  };
  for (int k = 0; k < kConcurrentFlows; ++k) send(0, k, 0);
  *events = 0;
  while (auto next = model.next_event_time()) {
    const int waiting = model.waiting_flow_count();
    const auto done = model.advance_to_with_times(*next);
    *events += static_cast<std::int64_t>(done.size()) + (waiting - model.waiting_flow_count());
    for (const CompletedFlow& flow : done) {
      const auto [stream, index] = flow_of[flow.id];
      fct[static_cast<std::size_t>(stream) * flows_per_stream + index] =
          flow.time - started[flow.id];
      if (index + 1 < flows_per_stream) send(flow.time, stream, index + 1);
    }
  }
  return fct;
}

void BM_ChurnAccuracy(benchmark::State& state) {
  const auto traffic = static_cast<Traffic>(state.range(0));
  const FlowModelOptions options{.tolerance = static_cast<double>(state.range(1)) / 1000};
  constexpr int kFlowsPerStream = 4;
  const ClusterFabric fabric(dgx_h100_cluster_128());
  Router router(fabric.topology());
  std::mt19937_64 random(7);
  const auto pool = path_pool(fabric, router, traffic, random);
  std::int64_t events = 0;
  static std::vector<Time> exact_by_traffic[2];  // the exact run is the slow part: once per traffic
  std::vector<Time>& exact = exact_by_traffic[state.range(0)];
  if (exact.empty()) exact = stream_completion_times(fabric, pool, {}, kFlowsPerStream, &events);
  std::vector<double> errors;
  double bias = 0;
  for (auto _ : state) {
    const auto fast = stream_completion_times(fabric, pool, options, kFlowsPerStream, &events);
    errors.clear();
    bias = 0;
    for (std::size_t i = 0; i < exact.size(); ++i) {
      if (i % kFlowsPerStream == 0) continue;
      const double error = static_cast<double>(fast[i] - exact[i]) / static_cast<double>(exact[i]);
      errors.push_back(std::abs(error));
      bias += error;
    }
  }
  std::sort(errors.begin(), errors.end());
  double mean = 0;
  for (double error : errors) mean += error;
  const auto at = [&](double q) {
    return errors[static_cast<std::size_t>(q * (errors.size() - 1))];
  };
  state.counters["fct_err_mean_%"] = 100 * mean / static_cast<double>(errors.size());
  state.counters["fct_err_bias_%"] = 100 * bias / static_cast<double>(errors.size());
  state.counters["fct_err_p50_%"] = 100 * at(0.5);
  state.counters["fct_err_p99_%"] = 100 * at(0.99);
  state.counters["fct_err_max_%"] = 100 * errors.back();
  state.counters["events"] = static_cast<double>(events);
  state.SetLabel(std::string(traffic == Traffic::Uniform ? "uniform" : "rail-aligned") +
                 ", tolerance " + std::to_string(state.range(1)) + "e-3");
}
BENCHMARK(BM_ChurnAccuracy)
    ->ArgsProduct({{0, 1}, {10, 30, 100}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// One flow arriving into a network loaded with 10,000 long flows, then leaving: two re-solves.
void BM_OneArrivalIntoLoadedNetwork(benchmark::State& state) {
  const auto traffic = static_cast<Traffic>(state.range(0));
  const ClusterFabric fabric(dgx_h100_cluster_128());
  Router router(fabric.topology());
  std::mt19937_64 random(11);
  const auto pool = path_pool(fabric, router, traffic, random);
  FlowModel model(fabric.topology());
  for (int i = 0; i < kConcurrentFlows; ++i) {
    model.start_flow(0, *pool[random() % pool.size()], 1e15);  // never finish here
  }
  Time now = *model.next_event_time();
  model.advance_to(now);

  std::int64_t events = 0;
  const auto before = model.counters();
  for (auto _ : state) {
    const Path& path = *pool[random() % pool.size()];
    const FlowId id = model.start_flow(now, path, 1e15);
    now += path.latency;
    model.advance_to(now);
    model.cancel_flow(now, id);
    events += 2;
  }
  const auto after = model.counters();
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  report_solver_work(state, before, after);
  state.SetLabel(traffic == Traffic::Uniform ? "uniform" : "rail-aligned");
}
BENCHMARK(BM_OneArrivalIntoLoadedNetwork)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// NCCL-style ring traffic: for every rail and channel a ring over the 128 nodes (GPU k of node i
// sends to GPU k of node i + 1), 8 rails x 10 channels x 128 = 10,240 flows in flight. When a
// 4 MB chunk arrives, the receiver forwards the next one. Equal chunks finish together, so one
// solve serves many events, as in real collectives.
void BM_RingChannels(benchmark::State& state) {
  const ClusterFabric fabric(dgx_h100_cluster_128());
  Router router(fabric.topology());
  constexpr int kChannels = 10;
  constexpr double kChunkBytes = 4e6;
  const int nodes = fabric.node_count();
  // ring = rail * kChannels + channel; next_hop[ring][i] is the path node i -> node i + 1.
  std::vector<std::vector<const Path*>> next_hop;
  for (int rail = 0; rail < fabric.gpus_per_node(); ++rail) {
    for (int channel = 0; channel < kChannels; ++channel) {
      std::vector<const Path*> ring;
      for (int node = 0; node < nodes; ++node) {
        const std::uint64_t hash = hash_combine(hash_combine(mix64(rail), channel), node);
        ring.push_back(
            &router.route(fabric.gpu(node, rail), fabric.gpu((node + 1) % nodes, rail), hash));
      }
      next_hop.push_back(std::move(ring));
    }
  }
  FlowModel model(fabric.topology());
  std::vector<std::pair<int, int>> position;  // by FlowId: (ring, sending node)
  auto send = [&](Time now, int ring, int node) {
    const FlowId id = model.start_flow(now, *next_hop[ring][node], kChunkBytes);
    position.resize(id + 1);
    position[id] = {ring, node};
  };
  for (int ring = 0; ring < static_cast<int>(next_hop.size()); ++ring) {
    for (int node = 0; node < nodes; ++node) send(0, ring, node);
  }

  std::int64_t events = 0;
  const auto before = model.counters();
  for (auto _ : state) {
    const Time now = *model.next_event_time();
    const int waiting = model.waiting_flow_count();
    const auto done = model.advance_to(now);
    events += static_cast<std::int64_t>(done.size()) + (waiting - model.waiting_flow_count());
    for (FlowId id : done) {
      const auto [ring, node] = position[id];
      send(now, ring, (node + 1) % nodes);
    }
  }
  const auto after = model.counters();
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["flows"] = model.active_flow_count() + model.waiting_flow_count();
  state.counters["events_per_solve"] =
      static_cast<double>(events) /
      static_cast<double>(std::max<std::uint64_t>(1, after.solves - before.solves));
}
BENCHMARK(BM_RingChannels)->Unit(benchmark::kMicrosecond);

// Routing with warm distance labels.
void BM_Route(benchmark::State& state) {
  const ClusterFabric fabric(dgx_h100_cluster_128());
  Router router(fabric.topology());
  std::uint64_t hash = 0;
  for (int gpu = 0; gpu < fabric.gpu_count(); ++gpu) router.route(fabric.gpu(0), fabric.gpu(gpu));
  for (auto _ : state) {
    ++hash;
    const int dst = static_cast<int>(mix64(hash) % static_cast<std::uint64_t>(fabric.gpu_count()));
    benchmark::DoNotOptimize(
        router.route(fabric.gpu(static_cast<int>(hash % 1024)), fabric.gpu(dst), hash));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Route);

}  // namespace
}  // namespace seer::net

BENCHMARK_MAIN();
