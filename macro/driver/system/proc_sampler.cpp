#include "macro/driver/system/proc_sampler.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace gatebench::macro {
namespace {

const long kTicksPerSecond = sysconf(_SC_CLK_TCK);
const long kPageSize = sysconf(_SC_PAGESIZE);

}  // namespace

bool parse_proc_stat(const std::string& line, ProcInfo& out) {
  size_t open = line.find('(');
  size_t close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  out.pid = static_cast<pid_t>(std::atol(line.c_str()));
  out.comm = line.substr(open + 1, close - open - 1);
  // Fields after the comm, numbered as in proc(5) from 3 (state).
  std::istringstream rest(line.substr(close + 1));
  std::vector<std::string> fields;
  std::string field;
  while (rest >> field) fields.push_back(field);
  if (fields.size() < 22) return false;
  auto number = [&](int proc_field) {
    return std::strtoull(fields[static_cast<size_t>(proc_field - 3)].c_str(), nullptr, 10);
  };
  out.ppid = static_cast<pid_t>(number(4));
  out.pgrp = static_cast<pid_t>(number(5));
  out.cpu_ticks = number(14) + number(15);
  out.rss_bytes = number(24) * static_cast<uint64_t>(kPageSize);
  return true;
}

std::vector<ProcInfo> scan_proc() {
  std::vector<ProcInfo> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string line;
    ProcInfo info;
    if (std::getline(in, line) && parse_proc_stat(line, info)) out.push_back(std::move(info));
  }
  return out;
}

std::vector<ProcInfo> scan_pids(const std::vector<pid_t>& pids) {
  std::vector<ProcInfo> out;
  for (pid_t pid : pids) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    ProcInfo info;
    if (std::getline(in, line) && parse_proc_stat(line, info)) out.push_back(std::move(info));
  }
  return out;
}

std::vector<const ProcInfo*> select_trees(const std::vector<ProcInfo>& all,
                                          const std::vector<pid_t>& groups) {
  std::set<pid_t> members;
  for (const auto& p : all) {
    if (std::find(groups.begin(), groups.end(), p.pgrp) != groups.end()) members.insert(p.pid);
  }
  // Descendants that left the group: repeat until no new member appears (trees are shallow).
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& p : all) {
      if (!members.contains(p.pid) && members.contains(p.ppid)) {
        members.insert(p.pid);
        grew = true;
      }
    }
  }
  std::vector<const ProcInfo*> out;
  for (const auto& p : all) {
    if (members.contains(p.pid)) out.push_back(&p);
  }
  return out;
}

std::string process_name(const ProcInfo& process) {
  std::error_code ec;
  std::string exe =
      std::filesystem::read_symlink("/proc/" + std::to_string(process.pid) + "/exe", ec)
          .filename()
          .string();
  constexpr std::string_view kDeleted = " (deleted)";
  if (exe.ends_with(kDeleted)) exe.resize(exe.size() - kDeleted.size());
  return ec || exe.empty() ? process.comm : exe;
}

uint64_t pss_bytes(const ProcInfo& process) {
  std::ifstream in("/proc/" + std::to_string(process.pid) + "/smaps_rollup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("Pss:")) {
      return std::strtoull(line.c_str() + 4, nullptr, 10) * 1024;
    }
  }
  return process.rss_bytes;
}

void TreeSampler::start(const std::vector<ProcInfo>& snapshot, double t_s) {
  seen_.clear();
  for (const ProcInfo* p : select_trees(snapshot, groups_)) {
    seen_[p->pid] = Seen{name_of(*p), p->cpu_ticks, p->cpu_ticks};
  }
  last_t_ = t_s;
  last_total_ = total_ticks();
  peak_ = TreeUsage{};
}

uint64_t TreeSampler::total_ticks() const {
  uint64_t total = 0;
  for (const auto& [pid, s] : seen_) total += s.last - s.first;
  return total;
}

TreeSample TreeSampler::sample(const std::vector<ProcInfo>& snapshot, double t_s,
                               bool with_memory) {
  TreeSample out;
  out.t_s = t_s;
  uint64_t pss = 0;
  uint64_t rss = 0;
  for (const ProcInfo* p : select_trees(snapshot, groups_)) {
    auto it = seen_.find(p->pid);
    if (it == seen_.end()) it = seen_.emplace(p->pid, Seen{name_of(*p), 0, 0}).first;
    it->second.last = std::max(it->second.last, p->cpu_ticks);
    rss += p->rss_bytes;
    if (with_memory_ && with_memory) pss += pss_of(*p);
    ++out.processes;
  }
  uint64_t total = total_ticks();
  double dt = t_s - last_t_;
  if (dt > 0) {
    out.cpu_percent = 100.0 * static_cast<double>(total - last_total_) /
                      static_cast<double>(kTicksPerSecond) / dt;
  }
  last_t_ = t_s;
  last_total_ = total;
  out.pss_mb = static_cast<double>(pss) / (1024.0 * 1024.0);
  out.rss_mb = static_cast<double>(rss) / (1024.0 * 1024.0);
  if (with_memory) {
    peak_.peak_mb = std::max(peak_.peak_mb, out.pss_mb);
    peak_.peak_rss_mb = std::max(peak_.peak_rss_mb, out.rss_mb);
  }
  peak_.max_processes = std::max(peak_.max_processes, out.processes);
  return out;
}

double TreeSampler::cpu_seconds() const {
  return static_cast<double>(total_ticks()) / static_cast<double>(kTicksPerSecond);
}

std::map<std::string, double> TreeSampler::cpu_seconds_by_name() const {
  std::map<std::string, double> out;
  for (const auto& [pid, s] : seen_)
    out[s.comm] += static_cast<double>(s.last - s.first) / static_cast<double>(kTicksPerSecond);
  return out;
}

std::vector<pid_t> TreeSampler::members() const {
  std::vector<pid_t> out;
  out.reserve(seen_.size());
  for (const auto& [pid, s] : seen_) out.push_back(pid);
  return out;
}

TreeUsage TreeSampler::usage(double elapsed_s) const {
  TreeUsage out = peak_;
  if (elapsed_s <= 0) return out;
  auto percent = [&](uint64_t ticks) {
    return 100.0 * static_cast<double>(ticks) / static_cast<double>(kTicksPerSecond) / elapsed_s;
  };
  out.cpu_percent = percent(total_ticks());
  std::map<std::string, uint64_t> by_name;
  for (const auto& [pid, s] : seen_) by_name[s.comm] += s.last - s.first;
  for (const auto& [name, ticks] : by_name) out.cpu_by_process[name] = percent(ticks);
  return out;
}

}  // namespace gatebench::macro
