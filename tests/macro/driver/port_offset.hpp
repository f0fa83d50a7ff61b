#pragma once
// The --port-offset of a driver end-to-end test, from one allocator shared by every test process
// of the machine (every checkout and build directory too): ctest runs these tests side by side
// (-j above the core count, as they mostly wait), so no two may hold the same ports, and
// hand-picked offsets per test had collided (two suites both picked -6700).
//
// An offset is held by an exclusive flock on its slot file, <dir>/<offset> in a directory only
// this user may write (/tmp/gatebench-port-offsets-<uid>), for the rest of the process: ctest runs
// each test in a process of its own, so each running test holds its own offset, and the kernel
// drops the lock when the process ends however it ends (no stale slot after a crash). The slot
// is taken only when every port of the offset also binds (SO_REUSEADDR, as the services bind),
// so a server another test or a previous run left behind, or anything else listening there,
// moves the test on to the next offset.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "macro/driver/system/net_probe.hpp"

namespace gatebench::macro::testing {

// Every port of the shipped scenarios and targets (macro/scenarios, macro/targets): an offset
// holds these plus the offset. Their remainders modulo 100 differ, so two offsets a multiple of
// 100 apart share no port (PortOffset.CoversEveryShippedPort checks both).
inline constexpr std::array<int, 8> kScenarioPorts{18080, 18081, 18082, 18083,
                                                   18101, 18102, 18379, 18443};
// The pool: 56 offsets, ports 24480 to 30343, below the ephemeral range (32768+) and apart from
// the offsets tests still name themselves (-11400 to 6300) and redis's 22379-22382
// (cache_redis_e2e_test).
inline constexpr int kFirstPooledOffset = 6400;
inline constexpr int kLastPooledOffset = 11900;
inline constexpr int kPooledOffsetStep = 100;
inline constexpr int kPooledOffsets =
    (kLastPooledOffset - kFirstPooledOffset) / kPooledOffsetStep + 1;

// One held offset; movable, released (lock dropped) when destroyed.
class PortOffsetLease {
 public:
  // Takes the first free offset of the pool in the machine's slot directory, trying from a slot
  // picked by the process id so that a test just finished and its successor do not take turns on
  // the same ports. Throws std::runtime_error naming the directory when no offset is free or the
  // directory is not private.
  PortOffsetLease() : PortOffsetLease(slot_dir(), static_cast<int>(::getpid())) {}
  // The same with slots in `dir` (private_dir), trying slot `first` (modulo their number) first.
  PortOffsetLease(const std::string& dir, int first) {
    const int start = first % kPooledOffsets;
    for (int i = 0; i < kPooledOffsets; ++i) {
      const int offset = kFirstPooledOffset + ((start + i) % kPooledOffsets) * kPooledOffsetStep;
      const std::string path = dir + "/" + std::to_string(offset);
      // O_CLOEXEC: a child (the driver, the services it starts) must not inherit the open file
      // and with it the lock, which would outlive this process.
      const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
      if (fd < 0) throw std::runtime_error(path + ": " + std::strerror(errno));
      if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && ports_free(offset)) {
        fd_ = fd;
        offset_ = offset;
        return;
      }
      ::close(fd);
    }
    throw std::runtime_error("no free port offset from " + std::to_string(kFirstPooledOffset) +
                             " to " + std::to_string(kLastPooledOffset) + " (slots in " + dir +
                             "; `ss -ltnp` names what listens)");
  }
  PortOffsetLease(PortOffsetLease&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)), offset_(other.offset_) {}
  PortOffsetLease& operator=(PortOffsetLease&& other) noexcept {
    std::swap(fd_, other.fd_);
    std::swap(offset_, other.offset_);
    return *this;
  }
  PortOffsetLease(const PortOffsetLease&) = delete;
  PortOffsetLease& operator=(const PortOffsetLease&) = delete;
  ~PortOffsetLease() {
    if (fd_ >= 0) ::close(fd_);
  }

  int offset() const { return offset_; }

  static bool ports_free(int offset) {
    for (int port : kScenarioPorts)
      if (!port_free(port + offset)) return false;
    return true;
  }

  // The machine's slot directory for this user, created on first use.
  static std::string slot_dir() {
    return private_dir("/tmp/gatebench-port-offsets-" + std::to_string(::geteuid()));
  }

  // `dir`, created when missing; refused unless it is a directory of this user that nobody else
  // may write (another user could otherwise hold or swap the slots).
  static std::string private_dir(const std::string& dir) {
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
      throw std::runtime_error(dir + ": " + std::strerror(errno));
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) throw std::runtime_error(dir + ": " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 022) != 0)
      throw std::runtime_error(dir + ": not a directory of this user closed to others' writes");
    return dir;
  }

 private:
  int fd_ = -1;
  int offset_ = 0;
};

// This process's offset, taken on first use and held until the process ends.
inline int port_offset() {
  static const PortOffsetLease lease;
  return lease.offset();
}

}  // namespace gatebench::macro::testing
