// What gatebench-macro --instructions reads after each run, without valgrind: the system calls
// of valgrind --trace-syscalls=yes logs (each call once, waits and vDSO calls apart), the
// totals of a process tree's callgrind files, and the N/2N arithmetic per request.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "driver_exe.hpp"
#include "macro/driver/measure/instructions.hpp"
#include "macro/driver/results/run_support.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using testing::unique_dir;

// Lines as valgrind 3.19 writes them: a blocking call's entry line ends in "[async] ..." and
// its completion comes later as "(n) ... [async] --> ..."; a line interrupted by another
// thread's output continues as " --> ..."; valgrind's own messages start with "==pid==".
constexpr const char* kLog = R"(==71== Callgrind, a call-graph generating cache profiler
==71== Command: /usr/sbin/nginx -c proxy.conf
SYSCALL[71,1](232) sys_epoll_wait ( 9, 0x4a0c0b0, 512, -1 ) --> [async] ... 
SYSCALL[71,1](232) ... [async] --> Success(0x1) 
SYSCALL[71,1](45) sys_recvfrom ( 3, 0x1ffefff000, 1024, 0, 0x0, 0x0 ) --> Success(0x4e) 
SYSCALL[71,1](20) sys_writev ( 4, 0x1ffeffe000, 2 ) --> [pre-success] Success(0x4e) 
SYSCALL[71,1](228) sys_clock_gettime ( 1, 0x1ffeffe100 ) --> Success(0x0) 
SYSCALL[71,1](202) sys_futex ( 0x4a0c1b0, 129, 1, 0x0, 0x0 ) --> Success(0x0) 
SYSCALL[71,1](230) sys_clock_nanosleep( 0, 0, 0x1fff000400, 0x1fff000440 ) --> [async] ... 
SYSCALL[71,2](45) sys_recvfrom ( 5, 0x1ffefff000, 1024, 0, 0x0, 0x0 )
 --> [pre-fail] Failure(0xb) 
==71== I   refs:      29,669,900
)";

TEST(CountSyscalls, EachCallOnceByName) {
  std::istringstream in(kLog);
  const auto counts = count_syscalls(in);
  EXPECT_EQ(counts.at("epoll_wait"), 1u);  // not again for its completion line
  EXPECT_EQ(counts.at("recvfrom"), 2u);
  EXPECT_EQ(counts.at("writev"), 1u);
  EXPECT_EQ(counts.at("clock_gettime"), 1u);
  EXPECT_EQ(counts.at("clock_nanosleep"), 1u);  // no blank before its "("
  EXPECT_EQ(counts.size(), 6u);
  EXPECT_TRUE(is_wait_syscall("epoll_wait"));
  EXPECT_TRUE(is_wait_syscall("futex"));
  EXPECT_FALSE(is_wait_syscall("writev"));
  EXPECT_TRUE(is_vdso_call("clock_gettime"));
  EXPECT_FALSE(is_vdso_call("recvfrom"));
}

// The TLS keep-alive pattern of the reference gateway: after each response a read of the next
// record's header finds nothing (EAGAIN, "want read") unless the next request is already there.
TEST(CountSyscalls, CallsThatFailedWithEagainAreCountedApart) {
  std::istringstream in(R"(SYSCALL[9,2](0) sys_read ( 9, 0x801afa3, 5 ) --> [async] ... 
SYSCALL[9,2](0) ... [async] --> Failure(0xb) 
SYSCALL[9,2](232) sys_epoll_wait ( 4, 0x5db5270, 256, 100 ) --> [async] ... 
SYSCALL[9,2](232) ... [async] --> Success(0x1) 
SYSCALL[9,2](0) sys_read ( 9, 0x801afa3, 5 ) --> [async] ... 
SYSCALL[9,2](0) ... [async] --> Success(0x5) 
SYSCALL[9,2](288) sys_accept4 ( 7, 0x5db51f0, 0x5db51dc, 526336 ) --> Failure(0xb) 
SYSCALL[9,2](0) sys_read ( 10, 0x8009290, 16384 )
 --> [pre-fail] Failure(0xb) 
SYSCALL[9,2](0) sys_read ( 10, 0x8009290, 16384 ) --> [async] ... 
SYSCALL[9,2](0) ... [async] --> Failure(0x68) 
)");
  std::map<std::string, uint64_t> would_block;
  const auto counts = count_syscalls(in, &would_block);
  EXPECT_EQ(counts.at("read"), 4u);
  EXPECT_EQ(counts.at("accept4"), 1u);
  EXPECT_EQ(counts.at("epoll_wait"), 1u);
  // The async read's late EAGAIN, the accept's own and the continuation line's; ECONNRESET
  // (0x68) is a call that did something.
  EXPECT_EQ(would_block.at("read"), 2u);
  EXPECT_EQ(would_block.at("accept4"), 1u);
  EXPECT_EQ(would_block.count("epoll_wait"), 0u);
}

TEST(TreeTotals, SumOverEveryProcessOfTheTree) {
  const std::string dir = unique_dir("tree-totals");
  fs::remove_all(dir);
  fs::create_directories(dir);
  // nginx: the master and one worker (its file starts with the master's counts at the fork).
  write_text(dir + "/callgrind.out.71", "events: Ir\nsummary: 1000\ntotals: 1000\n");
  write_text(dir + "/callgrind.out.72", "events: Ir\ntotals: 1500\n");
  write_text(dir + "/valgrind.71.log", kLog);
  write_text(dir + "/valgrind.72.log",
             "SYSCALL[72,1](20) sys_writev ( 4, 0x1, 2 ) --> Success(0x4e) \n"
             "SYSCALL[72,1](232) sys_epoll_wait ( 9, 0x4, 512, -1 ) --> [async] ... \n");
  write_text(dir + "/proxy.conf", "not a file of the tree\n");
  const TreeFiles files = tree_files(dir);
  ASSERT_EQ(files.callgrind.size(), 2u);
  ASSERT_EQ(files.logs.size(), 2u);
  const common::MacroCountRun run = tree_totals(files, 200);
  EXPECT_EQ(run.requests, 200u);
  EXPECT_DOUBLE_EQ(run.instructions, 2500);
  EXPECT_EQ(run.callgrind_files, files.callgrind);
  // recvfrom 1 + writev 2; waits: epoll_wait 2, futex, clock_nanosleep and the recvfrom that
  // failed with EAGAIN; clock_gettime neither.
  EXPECT_EQ(*run.syscalls, 3u);
  EXPECT_EQ(*run.wait_syscalls, 5u);
  EXPECT_EQ(run.syscalls_by_name.at("recvfrom"), 2u);
  EXPECT_EQ(run.syscalls_by_name.at("writev"), 2u);
  EXPECT_EQ(run.syscalls_by_name.at("clock_gettime"), 1u);

  // A process killed before callgrind wrote its totals makes the run fail, naming the file.
  write_text(dir + "/callgrind.out.73", "events: Ir\nfn=(1) main\n");
  try {
    tree_totals(tree_files(dir), 200);
    FAIL() << "a truncated file was summed";
  } catch (const Outcome& o) {
    EXPECT_NE(o.reason.find("callgrind.out.73"), std::string::npos) << o.reason;
  }
  EXPECT_THROW(tree_totals(TreeFiles{}, 200), Outcome);
  fs::remove_all(dir);
}

TEST(PerRequest, TheTwoRunsDifferenced) {
  ScenarioInstructions s;
  s.runs.resize(2);
  s.runs[0] = {200, 1'418'505, {}, 538, 449, {}};
  s.runs[1] = {400, 2'826'509, {}, 1342, 849, {}};
  set_per_request(s);
  EXPECT_DOUBLE_EQ(*s.instructions_per_request, (2'826'509.0 - 1'418'505.0) / 200);
  EXPECT_DOUBLE_EQ(*s.syscalls_per_request, 4.02);
  EXPECT_DOUBLE_EQ(*s.wait_syscalls_per_request, 2.0);
  // No system calls counted (a file of an older driver): no figure, not zero.
  s.runs[0].syscalls.reset();
  set_per_request(s);
  EXPECT_FALSE(s.syscalls_per_request);
  EXPECT_TRUE(s.instructions_per_request);
}

}  // namespace
}  // namespace gatebench::macro
