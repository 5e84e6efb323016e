// Reports: number formatting, and summary/run/trace JSON and the terminal report of a session,
// both empty and after one scripted client spoke the wire protocol to it over its socket.

#include "seer/runtime/report.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "proto/frame.h"
#include "report_stats.h"
#include "seer/runtime/cluster.h"
#include "seer/runtime/session.h"
#include "wire.pb.h"

namespace seer::rt {
namespace {

using nlohmann::json;
using sim::Time;

TEST(HumanTime, Ranges) {
  EXPECT_EQ(human_time(0), "0 ns");
  EXPECT_EQ(human_time(999), "999 ns");
  EXPECT_EQ(human_time(9999), "9999 ns");
  EXPECT_EQ(human_time(10000), "10.00 us");
  EXPECT_EQ(human_time(96500), "96.50 us");
  EXPECT_EQ(human_time(999994), "999.99 us");
  EXPECT_EQ(human_time(1234567), "1.235 ms");
  EXPECT_EQ(human_time(10000000), "10.000 ms");
  EXPECT_EQ(human_time(123456789), "123.457 ms");
  EXPECT_EQ(human_time(9999999999), "10000.000 ms");
  EXPECT_EQ(human_time(10000000000), "10.000 s");
  EXPECT_EQ(human_time(3600000000000), "3600.000 s");
}

TEST(HumanBytes, Ranges) {
  EXPECT_EQ(human_bytes(0), "0 B");
  EXPECT_EQ(human_bytes(1023), "1023 B");
  EXPECT_EQ(human_bytes(1024), "1.0 KiB");
  EXPECT_EQ(human_bytes(1536), "1.5 KiB");
  EXPECT_EQ(human_bytes(1048576), "1.0 MiB");
  EXPECT_EQ(human_bytes(3 * 1048576 + 524288), "3.5 MiB");
  EXPECT_EQ(human_bytes(uint64_t{1} << 30), "1.00 GiB");
  EXPECT_EQ(human_bytes(uint64_t{80} << 30), "80.00 GiB");
  EXPECT_EQ(human_bytes(uint64_t{1} << 40), "1024.00 GiB");
}

SessionOptions TestFabricOptions() {
  SessionOptions o;
  o.cluster = load_cluster("test-fabric");
  o.host_time = HostTime::kModeled;
  o.hang_warning_s = 1000;
  return o;
}

TEST(SessionReports, EmptySession) {
  std::string socket;
  {
    Session session(TestFabricOptions());
    socket = session.socket_path();
    struct stat st {};
    ASSERT_EQ(::stat(socket.c_str(), &st), 0) << socket;
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(session.engine().gpu_count(), 4);
    EXPECT_EQ(session.engine().gpu_node(1), 0);
    EXPECT_EQ(session.engine().gpu_node(2), 1);

    const SessionResult result = session.result();
    EXPECT_TRUE(result.processes.empty());
    EXPECT_TRUE(result.problems.empty());
    EXPECT_EQ(result.simulated_ns, 0);

    RunDescription run;
    run.command = {"./train", "--steps", "1"};
    run.exit_code = 3;
    run.exit_description = "exited with status 3";
    const json s = json::parse(summary_json(session, result, run));
    EXPECT_EQ(s["schema"], "seer.summary");
    EXPECT_EQ(s["schema_version"], 1);
    EXPECT_EQ(s["cluster"]["name"], "test-fabric");
    EXPECT_EQ(s["cluster"]["source"], "test-fabric");
    EXPECT_EQ(s["cluster"]["nodes"], 2);
    EXPECT_EQ(s["cluster"]["gpus_per_node"], 2);
    EXPECT_EQ(s["cluster"]["gpu"], "H100-SXM-80GB");
    EXPECT_EQ(s["host_time"], "modeled");
    EXPECT_EQ(s["command"], json({"./train", "--steps", "1"}));
    EXPECT_EQ(s["exit_code"], 3);
    EXPECT_EQ(s["simulated_time_ns"], 0);
    EXPECT_EQ(s["processes"], json::array());
    EXPECT_EQ(s["gpus"], json::array());
    EXPECT_EQ(s["kernels"], json::array());
    EXPECT_EQ(s["time_sources"]["generic_kernel_ns"], 0);
    EXPECT_EQ(s["time_sources"]["all_ops_ns"], 0);
    EXPECT_EQ(s["problems"], json::array());

    const json t = json::parse(trace_json(session, result));
    EXPECT_EQ(t["traceEvents"], json::array());
    EXPECT_EQ(t["displayTimeUnit"], "ns");

    const json r = json::parse(run_json(session, result));
    EXPECT_EQ(r["schema"], "seer.run");
    EXPECT_EQ(r["schema_version"], 1);
    EXPECT_EQ(r["records"], 0);
    EXPECT_EQ(r["processes"], json::array());

    std::ostringstream out;
    print_report(out, session, result, run);
    const std::string text = out.str();
    EXPECT_NE(text.find("== seer report =="), std::string::npos) << text;
    EXPECT_NE(text.find("cluster      test-fabric: 2 nodes x 2 H100-SXM-80GB (test-fabric)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("program      exited with status 3"), std::string::npos) << text;
    EXPECT_NE(text.find("0 processes joined"), std::string::npos) << text;
    EXPECT_EQ(text.find("estimated"), std::string::npos) << text;
  }
  struct stat st {};
  EXPECT_NE(::stat(socket.c_str(), &st), 0) << "the socket is removed with the session";
}

// A minimal client of the wire protocol (what the interposer does), for driving a Session.
class WireClient {
 public:
  explicit WireClient(const std::string& path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    connected_ = fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    timeval tv{10, 0};  // a broken session fails the test instead of hanging it
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~WireClient() { Close(); }
  bool connected() const { return connected_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  bool Send(const wire::ClientMessage& m) {
    std::string out;
    const std::string body = m.SerializeAsString();
    wire::append_frame_header(out, static_cast<uint32_t>(body.size()));
    out += body;
    return wire::write_all(fd_, out.data(), out.size());
  }
  std::optional<wire::SessionMessage> Receive() {
    bool corrupt = false;
    while (true) {
      if (auto f = reader_.next(corrupt)) {
        wire::SessionMessage m;
        if (!m.ParseFromString(*f)) return std::nullopt;
        return m;
      }
      if (corrupt) return std::nullopt;
      char buf[4096];
      const ssize_t n = ::read(fd_, buf, sizeof buf);
      if (n <= 0) return std::nullopt;
      reader_.append(buf, static_cast<size_t>(n));
    }
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  wire::FrameReader reader_;
};

// Durations (test-fabric: H100, 50 GB/s + 2 us host link):
//   kernel of 1057 blocks x 256 threads: 2 waves -> 2000 + 2*1500 = 5000 ns
//   H2D 1 MiB pinned: 2000 + ceil(20971.52) = 22972 ns
//   D2H 2 MiB pinned: 2000 + ceil(41943.04) = 43944 ns
// Stream 1 (blocking): kernel submitted at 1000 -> 1000..6000; H2D submitted at 2000 -> FIFO
//   6000..28972. Stream 2 (non-blocking): D2H at 1000 -> 1000..44944 (copy-out engine).
// cudaStreamSynchronize(1) at t=3000 completes at 28972; the thread resumes at 28972 + 1000.
class ScriptedSession : public ::testing::Test {
 protected:
  void SetUp() override {
    session_ = std::make_unique<Session>(TestFabricOptions());
    server_ = std::thread([this] { session_->serve([this] { return !stop_.load(); }); });
    WireClient client(session_->socket_path());
    ASSERT_TRUE(client.connected());
    Script(client);
    client.Close();
    stop_ = true;
    server_.join();
    result_ = session_->result();
  }
  void TearDown() override {
    stop_ = true;
    if (server_.joinable()) server_.join();
  }

  void Script(WireClient& client) {
    wire::ClientMessage hello;
    hello.mutable_hello()->set_pid(4242);
    hello.mutable_hello()->set_rank(0);
    hello.mutable_hello()->set_world_size(1);
    hello.mutable_hello()->set_local_rank(0);
    hello.mutable_hello()->set_program("unit");
    ASSERT_TRUE(client.Send(hello));
    auto welcome = client.Receive();
    ASSERT_TRUE(welcome && welcome->has_welcome());
    welcome_ = welcome->welcome();

    wire::ClientMessage m;
    wire::Batch* b = m.mutable_batch();
    auto add = [&](int64_t t) {
      wire::Record* r = b->add_records();
      r->set_t(t);
      return r;
    };
    auto* s1 = add(0)->mutable_stream_create();
    s1->set_stream(1);
    s1->set_gpu(0);
    s1->set_blocking(true);
    auto* s2 = add(0)->mutable_stream_create();
    s2->set_stream(2);
    s2->set_gpu(0);
    s2->set_blocking(false);
    auto* reg = add(0)->mutable_register_kernel();
    reg->set_func_id(7);
    reg->set_name("_Z6kernelPfi");
    auto* alloc = add(500)->mutable_alloc();
    alloc->set_gpu(0);
    alloc->set_bytes(uint64_t{1} << 30);
    auto* launch = add(1000)->mutable_launch();
    launch->set_func_id(7);
    launch->set_stream(1);
    launch->set_gx(1057);
    launch->set_gy(1);
    launch->set_gz(1);
    launch->set_bx(256);
    launch->set_by(1);
    launch->set_bz(1);
    auto* d2h = add(1000)->mutable_copy();
    d2h->set_kind(wire::COPY_D2H);
    d2h->set_stream(2);
    d2h->set_bytes(2 << 20);
    d2h->set_pinned(true);
    d2h->set_src_gpu(0);
    d2h->set_dst_gpu(-1);
    auto* h2d = add(2000)->mutable_copy();
    h2d->set_kind(wire::COPY_H2D);
    h2d->set_stream(1);
    h2d->set_bytes(1 << 20);
    h2d->set_pinned(true);
    h2d->set_src_gpu(-1);
    h2d->set_dst_gpu(0);
    b->set_promise(3000);
    b->set_all_blocked(true);
    wire::Request* req = b->mutable_request();
    req->set_id(1);
    req->set_t(3000);
    req->set_stream_sync(1);
    ASSERT_TRUE(client.Send(m));
    auto answer = client.Receive();
    ASSERT_TRUE(answer && answer->has_answer());
    answer_ = answer->answer();

    wire::ClientMessage bye;
    bye.mutable_batch()->set_promise(answer_.t());
    bye.mutable_batch()->set_answers_received(1);
    bye.mutable_batch()->mutable_request()->set_id(2);
    bye.mutable_batch()->mutable_request()->set_t(answer_.t());
    bye.mutable_batch()->mutable_request()->set_goodbye(true);
    ASSERT_TRUE(client.Send(bye));
  }

  std::unique_ptr<Session> session_;
  std::thread server_;
  std::atomic<bool> stop_{false};
  wire::Welcome welcome_;
  wire::Answer answer_;
  SessionResult result_;
};

TEST_F(ScriptedSession, WelcomeDescribesTheCluster) {
  EXPECT_EQ(welcome_.process_id(), 0);
  EXPECT_EQ(welcome_.rank(), 0);
  EXPECT_EQ(welcome_.gpu_count(), 4);
  ASSERT_EQ(welcome_.gpus_size(), 4);
  EXPECT_EQ(welcome_.gpus(0).name(), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(welcome_.gpus(0).sm_count(), 132);
  EXPECT_EQ(welcome_.gpus(3).node(), 1);
  EXPECT_EQ(welcome_.gpus(3).local_index(), 1);
  EXPECT_EQ(welcome_.host_time(), wire::HOST_TIME_MODELED);
  EXPECT_EQ(welcome_.costs().launch(), 2000);
  EXPECT_EQ(welcome_.costs().sync_return(), 1000);
}

TEST_F(ScriptedSession, StreamSyncAnswer) {
  EXPECT_EQ(answer_.id(), 1u);
  EXPECT_TRUE(answer_.ready());
  EXPECT_EQ(answer_.completion(), 28972);
  EXPECT_EQ(answer_.t(), 28972 + 1000);
}

TEST_F(ScriptedSession, Result) {
  ASSERT_EQ(result_.processes.size(), 1u);
  const ProcessInfo& p = result_.processes[0];
  EXPECT_EQ(p.process, 0);
  EXPECT_EQ(p.rank, 0);
  EXPECT_EQ(p.pid, 4242);
  EXPECT_EQ(p.program, "unit");
  EXPECT_TRUE(p.said_goodbye);
  EXPECT_EQ(p.last_time, 29972);
  EXPECT_TRUE(result_.problems.empty()) << result_.problems.front();
  EXPECT_EQ(result_.simulated_ns, 44944);  // the D2H ends after the process' last call
  EXPECT_EQ(result_.records, 7u);
  EXPECT_EQ(result_.requests, 2u);
}

TEST_F(ScriptedSession, Stats) {
  const RunStats s = compute_stats(*session_, result_);
  ASSERT_EQ(s.gpus.size(), 1u) << "only GPUs that did something";
  const GpuStats& g = s.gpus[0];
  EXPECT_EQ(g.gpu, 0);
  EXPECT_EQ(g.busy_ns, 43944);  // union of [1000,6000], [6000,28972], [1000,44944]
  EXPECT_EQ(g.kernels, 1u);
  EXPECT_EQ(g.kernel_ns, 5000);
  EXPECT_EQ(g.copies, 2u);
  EXPECT_EQ(g.copy_ns, 22972 + 43944);
  EXPECT_EQ(g.copy_bytes, 3u << 20);
  EXPECT_EQ(g.peak_bytes, uint64_t{1} << 30);
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].name, "kernel(float*, int)");
  EXPECT_EQ(s.kernels[0].count, 1u);
  EXPECT_EQ(s.kernels[0].total_ns, 5000);
  EXPECT_EQ(s.simulated_ns, 44944);
  EXPECT_EQ(s.generic_kernel_ns, 5000);
  EXPECT_EQ(s.total_op_ns, 5000 + 22972 + 43944);
}

TEST_F(ScriptedSession, SummaryJson) {
  RunDescription run;
  run.command = {"./unit"};
  run.exit_description = "exited with status 0";
  const json s = json::parse(summary_json(*session_, result_, run));
  EXPECT_EQ(s["schema"], "seer.summary");
  EXPECT_EQ(s["simulated_time_ns"], 44944);
  EXPECT_EQ(
      s["processes"],
      json::parse(
          R"j([{"process":0,"rank":0,"label":"rank 0 (node 0, GPU 0)","exited_normally":true,"submitted_work":true}])j"));
  ASSERT_EQ(s["gpus"].size(), 1u);
  const json& g = s["gpus"][0];
  EXPECT_EQ(g["gpu"], 0);
  EXPECT_EQ(g["node"], 0);
  EXPECT_EQ(g["busy_ns"], 43944);
  EXPECT_EQ(g["kernels"], json::parse(R"j({"count":1,"time_ns":5000})j"));
  EXPECT_EQ(g["copies"], json::parse(R"j({"count":2,"time_ns":66916,"bytes":3145728})j"));
  EXPECT_EQ(g["peak_memory_bytes"], 1073741824);
  const json kernels =
      json::parse(R"j([{"name":"kernel(float*, int)","count":1,"total_ns":5000,"avg_ns":5000,)j"
                  R"j("min_ns":5000,"max_ns":5000,"source":"generic"}])j");
  EXPECT_EQ(s["kernels"], kernels);
  EXPECT_EQ(s["time_sources"]["generic_kernel_ns"], 5000);
  EXPECT_EQ(s["time_sources"]["all_ops_ns"], 71916);
  EXPECT_EQ(s["time_sources"]["kernel_shares"]["generic"], 1.0);
  EXPECT_EQ(s["problems"], json::array());
  // Deterministic content: the same inputs give the same bytes.
  EXPECT_EQ(summary_json(*session_, result_, run), summary_json(*session_, result_, run));
}

TEST_F(ScriptedSession, TraceJson) {
  const json t = json::parse(trace_json(*session_, result_));
  const json& ev = t["traceEvents"];
  // Process name and sort index, 2 stream tracks and the host thread, 3 ops, and the host
  // thread's wait in cudaStreamSynchronize.
  ASSERT_EQ(ev.size(), 9u) << ev.dump(1);
  const json process_name = json::parse(
      R"j({"ph":"M","name":"process_name","pid":0,"args":{"name":"rank 0 (node 0, GPU 0)"}})j");
  const json thread_name = json::parse(
      R"j({"ph":"M","name":"thread_name","pid":0,"tid":0,"args":{"name":"GPU 0 stream 1"}})j");
  EXPECT_EQ(ev[0], process_name);
  EXPECT_EQ(ev[1]["name"], "process_sort_index");
  EXPECT_EQ(ev[2], thread_name);
  EXPECT_EQ(ev[3]["args"]["name"], "GPU 0 stream 2");
  EXPECT_EQ(ev[4]["args"]["name"], "host thread 0");
  EXPECT_EQ(ev[4]["tid"], 1000000);
  const json& k = ev[5];
  EXPECT_EQ(k["ph"], "X");
  EXPECT_EQ(k["name"], "kernel(float*, int)");
  EXPECT_EQ(k["cat"], "kernel");
  EXPECT_EQ(k["tid"], 0);
  EXPECT_DOUBLE_EQ(k["ts"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(k["dur"].get<double>(), 5.0);
  EXPECT_EQ(k["args"]["grid"], json({1057, 1, 1}));
  EXPECT_EQ(k["args"]["block"], json({256, 1, 1}));
  EXPECT_DOUBLE_EQ(k["args"]["submit_us"].get<double>(), 1.0);
  const json& d2h = ev[6];
  EXPECT_EQ(d2h["name"], "memcpy DtoH");
  EXPECT_EQ(d2h["cat"], "memory");
  EXPECT_EQ(d2h["tid"], 1);
  EXPECT_DOUBLE_EQ(d2h["ts"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(d2h["dur"].get<double>(), 43.944);
  EXPECT_EQ(d2h["args"]["bytes"], 2097152);
  const json& h2d = ev[7];
  EXPECT_EQ(h2d["name"], "memcpy HtoD");
  EXPECT_DOUBLE_EQ(h2d["ts"].get<double>(), 6.0);
  EXPECT_DOUBLE_EQ(h2d["dur"].get<double>(), 22.972);
  EXPECT_DOUBLE_EQ(h2d["args"]["submit_us"].get<double>(), 2.0);
  // The host waited from its call (3 us) until the copy it waited for ended, plus the 1 us
  // sync return.
  const json& wait = ev[8];
  EXPECT_EQ(wait["name"], "cudaStreamSynchronize");
  EXPECT_EQ(wait["cat"], "cuda_api");
  EXPECT_DOUBLE_EQ(wait["ts"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(wait["ts"].get<double>() + wait["dur"].get<double>(), 6.0 + 22.972 + 1.0);
}

TEST_F(ScriptedSession, TerminalReportAndFiles) {
  RunDescription run;
  run.command = {"./unit"};
  run.exit_description = "exited with status 0";
  std::ostringstream out;
  print_report(out, *session_, result_, run);
  const std::string text = out.str();
  for (const std::string part :
       {"host time    modeled", "1 process joined the simulation", "simulated    44.94 us",
        "node 0 gpu 0", "kernel(float*, int)", "1.00 GiB", "100.0% generic fallback",
        // no steps: the run is reported whole; the GPU ran 43.94 of the 44.94 us
        "the run is one step of 44.94 us", "43.94 us          0 ns          0 ns       1000 ns"}) {
    EXPECT_NE(text.find(part), std::string::npos) << "missing '" << part << "' in\n" << text;
  }
  EXPECT_EQ(text.find("problem"), std::string::npos) << text;

  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    ("seer-reports-" + std::to_string(getpid())) / "out";
  write_reports(dir.string(), *session_, result_, run);
  for (const char* f : {"summary.json", "run.json", "trace.json"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  }
  std::ifstream in(dir / "summary.json");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), summary_json(*session_, result_, run));
  const json r = json::parse(run_json(*session_, result_));
  EXPECT_EQ(r["records"], 7);
  EXPECT_EQ(r["blocking_requests"], 2);
  EXPECT_EQ(r["processes"][0]["pid"], 4242);
  EXPECT_EQ(r["processes"][0]["program"], "unit");
  std::filesystem::remove_all(dir.parent_path());
}

// Two ranks share GPU 0 and each launches a 1-block kernel (3500 ns) at t=0, then synchronizes its
// stream at t=100. Whichever rank reaches the session first, rank 0's kernel runs 0..3500 and
// rank 1's 3500..7000 (ties by process key), and the answers are completion + 1000 (sync return).
struct TwoRankOutcome {
  wire::Answer answers[2];
  std::vector<std::tuple<int, Time, Time>> records;  // process, start, end
};

void Join(WireClient& c, int rank) {
  wire::ClientMessage hello;
  hello.mutable_hello()->set_pid(100 + rank);
  hello.mutable_hello()->set_rank(rank);
  hello.mutable_hello()->set_world_size(2);
  ASSERT_TRUE(c.Send(hello));
  auto w = c.Receive();
  ASSERT_TRUE(w && w->has_welcome());
  EXPECT_EQ(w->welcome().process_id(), rank);
}

void LaunchAndSync(WireClient& c) {
  wire::ClientMessage m;
  wire::Batch* b = m.mutable_batch();
  wire::Record* r = b->add_records();
  r->mutable_stream_create()->set_stream(1);
  r->mutable_stream_create()->set_blocking(true);
  r = b->add_records();
  r->set_t(0);
  wire::Launch* l = r->mutable_launch();
  l->set_func_id(1);
  l->set_stream(1);
  l->set_gx(1);
  l->set_gy(1);
  l->set_gz(1);
  l->set_bx(256);
  l->set_by(1);
  l->set_bz(1);
  b->set_promise(100);
  b->set_all_blocked(true);
  b->mutable_request()->set_id(1);
  b->mutable_request()->set_t(100);
  b->mutable_request()->set_stream_sync(1);
  ASSERT_TRUE(c.Send(m));
}

void Leave(WireClient& c, Time t) {
  wire::ClientMessage bye;
  bye.mutable_batch()->set_promise(t);
  bye.mutable_batch()->set_answers_received(1);
  bye.mutable_batch()->mutable_request()->set_id(2);
  bye.mutable_batch()->mutable_request()->set_t(t);
  bye.mutable_batch()->mutable_request()->set_goodbye(true);
  ASSERT_TRUE(c.Send(bye));
  c.Close();
}

TwoRankOutcome RunTwoRanks(bool rank1_first) {
  TwoRankOutcome out;
  Session session(TestFabricOptions());
  std::atomic<bool> stop{false};
  std::thread server([&] { session.serve([&] { return !stop.load(); }); });
  {
    WireClient c0(session.socket_path());
    WireClient c1(session.socket_path());
    EXPECT_TRUE(c0.connected() && c1.connected());
    WireClient* first = rank1_first ? &c1 : &c0;
    WireClient* second = rank1_first ? &c0 : &c1;
    Join(*first, rank1_first ? 1 : 0);
    LaunchAndSync(*first);
    Join(*second, rank1_first ? 0 : 1);
    LaunchAndSync(*second);
    // Rank 0's answer (t = 4500) holds virtual time back until rank 0 acknowledges it (here by
    // leaving), so rank 1's answer (7000) comes only after that.
    for (int rank = 0; rank < 2; ++rank) {
      WireClient& c = rank == 0 ? c0 : c1;
      auto a = c.Receive();
      EXPECT_TRUE(a && a->has_answer());
      if (a) out.answers[rank] = a->answer();
      Leave(c, out.answers[rank].t());
    }
  }
  stop = true;
  server.join();
  for (const sim::OpRecord& r : session.engine().records()) {
    out.records.emplace_back(r.process, r.start, r.end);
  }
  EXPECT_TRUE(session.result().problems.empty());
  return out;
}

TEST(SessionDeterminism, ArrivalOrderDoesNotChangeVirtualResults) {
  for (bool rank1_first : {false, true}) {
    SCOPED_TRACE(rank1_first ? "rank 1 first" : "rank 0 first");
    const TwoRankOutcome o = RunTwoRanks(rank1_first);
    EXPECT_EQ(o.answers[0].completion(), 3500);
    EXPECT_EQ(o.answers[0].t(), 4500);
    EXPECT_EQ(o.answers[1].completion(), 7000);
    EXPECT_EQ(o.answers[1].t(), 8000);
    EXPECT_EQ(o.records, (std::vector<std::tuple<int, Time, Time>>{{0, 0, 3500}, {1, 3500, 7000}}));
  }
}

}  // namespace
}  // namespace seer::rt
