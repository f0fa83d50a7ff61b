// A worker's pool of recycled buffers of one kind (the parts of a request set, connection.hpp):
// taken from the back, so the most recently given back (cache-warm) serves next, and trimmed on
// the worker's tick to what the last peak windows used, so memory follows the connections and
// requests in flight, not their peak.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace gatebench::gateway {

template <class T>
class SparePool {
 public:
  // A spare one, or make()'s when there is none; counted in use until given back.
  template <class Make>
  T take(Make&& make) {
    T t;
    if (spare_.empty()) {
      t = make();
    } else {
      t = std::move(spare_.back());
      spare_.pop_back();
    }
    ++in_use_;
    current_peak_ = std::max(current_peak_, in_use_);
    return t;
  }
  void give(T&& t) {
    --in_use_;
    spare_.push_back(std::move(t));
  }
  // A peak window ends: its peak becomes the previous one.
  void next_window() {
    previous_peak_ = current_peak_;
    current_peak_ = in_use_;
  }
  // Frees the spare ones beyond the larger of `floor` and the number the current or the previous
  // window had in use beyond those in use now, the ones unused the longest first. True when it
  // freed any.
  bool trim(std::size_t floor) {
    const std::size_t peak = std::max({previous_peak_, current_peak_, in_use_});
    const std::size_t keep = std::max(floor, peak - in_use_);
    if (spare_.size() <= keep) return false;
    spare_.erase(spare_.begin(),
                 spare_.begin() + static_cast<std::ptrdiff_t>(spare_.size() - keep));
    return true;
  }
  std::size_t in_use() const { return in_use_; }
  std::size_t spare() const { return spare_.size(); }

 private:
  std::vector<T> spare_;
  std::size_t in_use_ = 0;
  std::size_t current_peak_ = 0;
  std::size_t previous_peak_ = 0;
};

}  // namespace gatebench::gateway
