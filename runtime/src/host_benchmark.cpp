// The host calibration benchmark (simcore/src/HOST_CPU.md "Benchmark"): a small bytecode
// interpreter doing what CPython and PyTorch's dispatcher spend their time on between CUDA calls:
// an opcode switch, name lookups in string-keyed hash maps, boxed values with reference counts
// allocated and freed on the heap, and calls through a table of function pointers.

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "seer/runtime/host_calibration.h"

namespace seer::rt {
namespace {

struct Box {
  int64_t refs = 1;
  int64_t value = 0;
};

void release(Box* b) {
  if (--b->refs == 0) delete b;
}

enum class Op : uint8_t { kConst, kLoad, kStore, kAdd, kMul, kMod, kCall, kJumpIfLess, kHalt };

struct Instr {
  Op op;
  int arg;
};

using Builtin = int64_t (*)(int64_t);
int64_t mix(int64_t v) { return (v ^ (v >> 7)) * 0x9E3779B1LL; }
int64_t fold(int64_t v) { return (v & 0xffff) + (v >> 16); }

// i = 0; acc = 0; loop: t = i * 3; acc = acc + t % 7; x = builtin[i & 1](t); i = i + 1;
// if i < n: goto loop.
std::vector<Instr> program() {
  enum Name { kI, kAcc, kT, kX, kN };
  enum Const { k0, k1, k3, k7 };
  return {
      {Op::kConst, k0},
      {Op::kStore, kI},
      {Op::kConst, k0},
      {Op::kStore, kAcc},
      // loop (pc 4)
      {Op::kLoad, kI},
      {Op::kConst, k3},
      {Op::kMul, 0},
      {Op::kStore, kT},
      {Op::kLoad, kAcc},
      {Op::kLoad, kT},
      {Op::kConst, k7},
      {Op::kMod, 0},
      {Op::kAdd, 0},
      {Op::kStore, kAcc},
      {Op::kLoad, kT},
      {Op::kCall, 0},
      {Op::kStore, kX},
      {Op::kLoad, kI},
      {Op::kConst, k1},
      {Op::kAdd, 0},
      {Op::kStore, kI},
      {Op::kLoad, kI},
      {Op::kLoad, kN},
      {Op::kJumpIfLess, 4},
      {Op::kHalt, 0},
  };
}

// Runs the program for `iterations` loop turns; returns the instructions executed.
uint64_t interpret(int64_t iterations, int64_t* result) {
  static const char* const kNames[] = {"i", "acc", "t", "x", "n"};
  std::unordered_map<std::string, Box*> names;
  for (const char* n : kNames) names.emplace(n, new Box{1, 0});
  names["n"]->value = iterations;
  std::vector<Box*> consts = {new Box{1, 0}, new Box{1, 1}, new Box{1, 3}, new Box{1, 7}};
  const Builtin builtins[] = {mix, fold};
  const std::vector<Instr> code = program();
  std::vector<Box*> stack;
  stack.reserve(16);
  std::string key;
  uint64_t executed = 0;
  auto pop = [&stack] {
    Box* b = stack.back();
    stack.pop_back();
    return b;
  };
  auto binary = [&](auto f) {
    Box* r = pop();
    Box* l = pop();
    stack.push_back(new Box{1, f(l->value, r->value)});
    release(l);
    release(r);
  };
  for (size_t pc = 0;;) {
    const Instr in = code[pc++];
    ++executed;
    switch (in.op) {
      case Op::kConst:
        ++consts[static_cast<size_t>(in.arg)]->refs;
        stack.push_back(consts[static_cast<size_t>(in.arg)]);
        break;
      case Op::kLoad: {
        key = kNames[in.arg];  // like CPython, names are looked up by string
        Box* b = names.find(key)->second;
        ++b->refs;
        stack.push_back(b);
        break;
      }
      case Op::kStore: {
        key = kNames[in.arg];
        Box*& slot = names[key];
        release(slot);
        slot = pop();
        break;
      }
      case Op::kAdd:
        binary([](int64_t a, int64_t b) { return a + b; });
        break;
      case Op::kMul:
        binary([](int64_t a, int64_t b) { return a * b; });
        break;
      case Op::kMod:
        binary([](int64_t a, int64_t b) { return b != 0 ? a % b : 0; });
        break;
      case Op::kCall: {
        Box* a = pop();
        const Builtin f = builtins[names.find("i")->second->value & 1];
        stack.push_back(new Box{1, f(a->value)});
        release(a);
        break;
      }
      case Op::kJumpIfLess: {
        Box* r = pop();
        Box* l = pop();
        if (l->value < r->value) pc = static_cast<size_t>(in.arg);
        release(l);
        release(r);
        break;
      }
      case Op::kHalt:
        *result = names["acc"]->value + names["x"]->value;
        for (auto& [name, box] : names) release(box);
        for (Box* c : consts) release(c);
        return executed;
    }
  }
}

int64_t thread_cpu_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

double run_host_benchmark() {
  constexpr int kTrials = 5;
  constexpr int64_t kIterations = 100'000;  // ~2.2 M instructions, ~20 ms on the reference host
  double best = 0;
  int64_t sink = 0;
  for (int t = 0; t < kTrials; ++t) {
    int64_t result = 0;
    const int64_t start = thread_cpu_now_ns();
    const uint64_t executed = interpret(kIterations, &result);
    const int64_t elapsed = std::max<int64_t>(thread_cpu_now_ns() - start, 1);
    sink += result;
    best = std::max(best, static_cast<double>(executed) * 1e9 / static_cast<double>(elapsed));
  }
  // The result is checked so that no compiler drops the work.
  return sink == 0 ? 0 : best;
}

}  // namespace seer::rt
