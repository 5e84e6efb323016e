// Rogue and broken clients of a Seer session, for rogue_client_test.cpp. Run inside `seer run`
// (SEER_SOCKET names the session): `rogue_clients PID` attacks the session in rounds until
// process PID (the well-behaved program beside it) has ended, at least one round. Each round opens
// one connection per attack; a connection the session must drop is read until the session closes
// it. Prints ROGUE_PID, then per attack ROGUE_DROPPED NAME or ROGUE_NOT_DROPPED NAME (first round
// only), and ROGUE_ROUNDS N / ROGUE_ROUNDS_WHILE_ALIVE N (rounds that ended with PID running).

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "proto/frame.h"
#include "wire.pb.h"

namespace {

int connect_session() {
  const char* path = std::getenv("SEER_SOCKET");
  if (!path || !*path) {
    std::fprintf(stderr, "rogue_clients: SEER_SOCKET is not set\n");
    std::exit(2);
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::perror("rogue_clients: connect");
    std::exit(2);
  }
  return fd;
}

std::string frame(const std::string& payload) {
  std::string out;
  seer::wire::append_frame_header(out, static_cast<uint32_t>(payload.size()));
  return out + payload;
}

std::string message(const seer::wire::ClientMessage& m) { return frame(m.SerializeAsString()); }

std::string hello() {
  seer::wire::ClientMessage m;
  m.mutable_hello()->set_pid(static_cast<int>(::getpid()));
  m.mutable_hello()->set_rank(-1);
  m.mutable_hello()->set_program("rogue_clients");
  return message(m);
}

std::string empty_batch() {
  seer::wire::ClientMessage m;
  m.mutable_batch()->set_promise(0);
  return message(m);
}

// Whether the session closes the connection within 20 s (whatever it sends first is read).
bool closed_by_session(int fd) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
  }
  return false;
}

// Sends `bytes` on a fresh connection and waits for the session to drop it.
bool attack(const std::string& bytes) {
  const int fd = connect_session();
  const bool sent = seer::wire::write_all(fd, bytes.data(), bytes.size());
  const bool dropped = sent && closed_by_session(fd);
  ::close(fd);
  return dropped;
}

// Waits up to 20 s for the session's first bytes (its answer to hello).
void await_answer(int fd) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    (void)::read(fd, buf, sizeof buf);
    return;
  }
}

// Says hello, waits for the answer (otherwise the session's answer may meet a closed socket and
// drop the client before it reads the rest), sends a batch, then half of the next one, and goes
// away.
void disconnect_mid_batch() {
  const int fd = connect_session();
  const std::string welcome_first = hello();
  seer::wire::write_all(fd, welcome_first.data(), welcome_first.size());
  await_answer(fd);
  std::string batch = empty_batch();
  std::string partial;
  seer::wire::append_frame_header(partial, 200);
  partial += std::string(50, '\x0a');
  batch += partial;
  seer::wire::write_all(fd, batch.data(), batch.size());
  ::close(fd);
}

// Alive and not a zombie (the shell reaps the program only when it ends too).
bool running(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] != 'Z';
}

}  // namespace

int main(int argc, char** argv) {
  const int watched = argc > 1 ? std::atoi(argv[1]) : -1;
  std::printf("ROGUE_PID %d\n", static_cast<int>(::getpid()));
  std::fflush(stdout);

  const struct {
    const char* name;
    std::string bytes;
  } attacks[] = {
      // A frame whose payload is not a protobuf message (0xff is no valid tag).
      {"malformed_frame", frame(std::string(6, '\xff'))},
      // A length prefix far above the largest frame.
      {"huge_length", std::string("\xff\xff\xff\xff", 4) + "abc"},
      // A well-formed protobuf message of a type the protocol does not have (field 15).
      {"unknown_message", frame(std::string("\x78\x01", 2))},
      // Records before hello.
      {"batch_before_hello", empty_batch()},
      // Hello twice.
      {"second_hello", hello() + hello()},
  };

  int rounds = 0;
  int while_alive = 0;
  do {
    for (const auto& a : attacks) {
      const bool dropped = attack(a.bytes);
      if (rounds == 0)
        std::printf("%s %s\n", dropped ? "ROGUE_DROPPED" : "ROGUE_NOT_DROPPED", a.name);
    }
    disconnect_mid_batch();
    ++rounds;
    if (watched > 0 && running(watched)) ++while_alive;
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (watched > 0 && running(watched));
  std::printf("ROGUE_ROUNDS %d\nROGUE_ROUNDS_WHILE_ALIVE %d\n", rounds, while_alive);
  return 0;
}
