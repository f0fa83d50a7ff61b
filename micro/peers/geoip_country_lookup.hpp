// libgeoip's own country lookup over the legacy GeoIP.dat (Debian's geoip-database), opened
// with GEOIP_MEMORY_CACHE so it competes from memory, not from disk. Without libgeoip at build
// time, or without the data file, available() is false and reason() says why.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "micro/core/cidr/prefix.hpp"

namespace gatebench::peers {

inline constexpr const char* kGeoipCountryPath = "/usr/share/GeoIP/GeoIP.dat";

class GeoipCountryLookup {
 public:
  explicit GeoipCountryLookup(const std::string& path = kGeoipCountryPath);
  ~GeoipCountryLookup();
  GeoipCountryLookup(const GeoipCountryLookup&) = delete;
  GeoipCountryLookup& operator=(const GeoipCountryLookup&) = delete;

  bool available() const noexcept { return handle_ != nullptr; }
  const std::string& reason() const noexcept { return reason_; }

  // The packed country code (cidr::pack_country) or kNoMatch for addresses the database does
  // not place. Only when available().
  cidr::CidrValue lookup(std::uint32_t address) const noexcept;

 private:
  struct Handle;
  std::unique_ptr<Handle> handle_;
  std::vector<cidr::CidrValue> code_by_id_;  // libgeoip country id -> packed code
  std::string reason_;
};

}  // namespace gatebench::peers
