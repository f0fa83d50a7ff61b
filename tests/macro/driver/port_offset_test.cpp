// The end-to-end tests' port offsets (port_offset.hpp): every shipped port is in the allocator's
// list and offsets 100 apart share none; a slot another process holds, or whose ports something
// listens on, is passed over; the slot directory must be private.
#include "port_offset.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "macro/driver/system/env_info.hpp"

namespace gatebench::macro {
namespace port_offset_test {

namespace fs = std::filesystem;
using testing::kScenarioPorts;
using testing::PortOffsetLease;

// A fresh private directory for the slots of one test, removed afterwards: the tests here do not
// take offsets from the machine's pool the other tests are using.
class SlotDir {
 public:
  SlotDir() {
    std::string pattern = (fs::temp_directory_path() / "gatebench-port-slots-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~SlotDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  SlotDir(const SlotDir&) = delete;
  SlotDir& operator=(const SlotDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Every "ports" object's values in the file's JSON, however deep.
void collect_ports(const nlohmann::json& doc, std::set<int>& out) {
  if (doc.is_object()) {
    for (const auto& [key, value] : doc.items()) {
      if (key == "ports" && value.is_object()) {
        for (const auto& [name, port] : value.items())
          if (port.is_number_integer()) out.insert(port.get<int>());
      } else {
        collect_ports(value, out);
      }
    }
  } else if (doc.is_array()) {
    for (const auto& item : doc) collect_ports(item, out);
  }
}

TEST(PortOffset, CoversEveryShippedPort) {
  std::set<int> shipped;
  for (const char* dir : {"macro/scenarios", "macro/targets"}) {
    for (const auto& entry : fs::directory_iterator(fs::path(source_dir()) / dir)) {
      if (entry.path().extension() != ".json") continue;
      std::ifstream in(entry.path());
      collect_ports(nlohmann::json::parse(in), shipped);
    }
  }
  ASSERT_FALSE(shipped.empty());
  for (int port : shipped) {
    EXPECT_NE(std::find(kScenarioPorts.begin(), kScenarioPorts.end(), port), kScenarioPorts.end())
        << port << " is not in kScenarioPorts (port_offset.hpp): an offset would not check it";
  }
  std::set<int> remainders;
  for (int port : kScenarioPorts) remainders.insert(port % 100);
  EXPECT_EQ(remainders.size(), kScenarioPorts.size())
      << "two ports 100 apart: offsets 100 apart would share a port";
  // Every pooled port is below the ephemeral range and at least 1024.
  EXPECT_LE(
      *std::max_element(kScenarioPorts.begin(), kScenarioPorts.end()) + testing::kLastPooledOffset,
      32767);
}

TEST(PortOffset, TwoLeasesOfOneDirectoryDiffer) {
  SlotDir dir;
  const PortOffsetLease a(dir.path(), 0);
  const PortOffsetLease b(dir.path(), 0);
  EXPECT_NE(a.offset(), b.offset());
  EXPECT_EQ((a.offset() - testing::kFirstPooledOffset) % testing::kPooledOffsetStep, 0);
}

// A child process takes slot 0 and keeps it until killed: the parent, also starting at slot 0,
// gets another offset while the child lives and the child's once the kernel dropped its lock.
TEST(PortOffset, ASlotAnotherProcessHoldsIsPassedOver) {
  SlotDir dir;
  int to_parent[2];
  ASSERT_EQ(::pipe(to_parent), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(to_parent[0]);
    const PortOffsetLease held(dir.path(), 0);
    const int offset = held.offset();
    if (::write(to_parent[1], &offset, sizeof offset) != sizeof offset) ::_exit(1);
    ::pause();
    ::_exit(0);
  }
  ::close(to_parent[1]);
  int held = 0;
  ASSERT_EQ(::read(to_parent[0], &held, sizeof held), static_cast<ssize_t>(sizeof held));
  ::close(to_parent[0]);
  {
    const PortOffsetLease mine(dir.path(), 0);
    EXPECT_NE(mine.offset(), held);
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  const PortOffsetLease after(dir.path(), 0);
  EXPECT_EQ(after.offset(), held);
}

// Something listening on one port of the offset the lease would take moves it to the next.
TEST(PortOffset, AListeningPortMovesTheLeaseOn) {
  SlotDir dir;
  int first = 0;
  int fd = -1;
  // Tests running beside this one listen on the offsets the shared allocator gave them, and a
  // private lease directory hands out the same ones: when such a test takes the port between
  // the lease and the bind, the lease is asked again (it then skips that offset).
  for (int attempt = 0; attempt < 20 && fd < 0; ++attempt) {
    {
      const PortOffsetLease lease(dir.path(), 0);
      first = lease.offset();
    }
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(18443 + first));
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ASSERT_EQ(errno, EADDRINUSE);
      ::close(fd);
      fd = -1;
    }
  }
  ASSERT_GE(fd, 0) << "every offset tried was taken by another process";
  ASSERT_EQ(::listen(fd, 1), 0);
  {
    const PortOffsetLease lease(dir.path(), 0);
    EXPECT_NE(lease.offset(), first);
  }
  ::close(fd);
  const PortOffsetLease lease(dir.path(), 0);
  EXPECT_EQ(lease.offset(), first);
}

TEST(PortOffset, ADirectoryOthersMayWriteIsRefused) {
  SlotDir dir;
  EXPECT_EQ(PortOffsetLease::private_dir(dir.path()), dir.path());
  ASSERT_EQ(::chmod(dir.path().c_str(), 0777), 0);
  try {
    PortOffsetLease::private_dir(dir.path());
    ADD_FAILURE() << "no error for a directory others may write";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(dir.path()), std::string::npos) << e.what();
  }
}

}  // namespace port_offset_test
}  // namespace gatebench::macro
