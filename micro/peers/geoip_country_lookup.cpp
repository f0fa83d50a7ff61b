#include "micro/peers/geoip_country_lookup.hpp"

#if GATEBENCH_HAVE_GEOIP
#include <GeoIP.h>

#include <filesystem>
#include <system_error>
#endif

namespace gatebench::peers {

#if GATEBENCH_HAVE_GEOIP

struct GeoipCountryLookup::Handle {
  explicit Handle(GeoIP* g) : gi(g) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { GeoIP_delete(gi); }
  GeoIP* gi;
};

GeoipCountryLookup::GeoipCountryLookup(const std::string& path) {
  // GeoIP_open prints to stderr and returns null on a missing file; check first for a reason.
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    reason_ = "GeoIP country database " + path + " not found (apt-get install geoip-database)";
    return;
  }
  GeoIP* gi = GeoIP_open(path.c_str(), GEOIP_MEMORY_CACHE | GEOIP_SILENCE);
  if (gi == nullptr) {
    reason_ = "libgeoip cannot open " + path + " (apt-get install geoip-database)";
    return;
  }
  if (GeoIP_database_edition(gi) != GEOIP_COUNTRY_EDITION) {
    GeoIP_delete(gi);
    reason_ = path + " is not a GeoIP country (IPv4) database";
    return;
  }
  handle_ = std::make_unique<Handle>(gi);
  const unsigned countries = GeoIP_num_countries();
  code_by_id_.assign(countries, cidr::kNoMatch);
  for (unsigned id = 1; id < countries; ++id) {
    const char* code = GeoIP_code_by_id(static_cast<int>(id));
    if (code != nullptr && code[0] != '\0' && code[1] != '\0' && code[2] == '\0') {
      code_by_id_[id] = cidr::pack_country(code[0], code[1]);
    }
  }
}

GeoipCountryLookup::~GeoipCountryLookup() = default;

cidr::CidrValue GeoipCountryLookup::lookup(std::uint32_t address) const noexcept {
  GeoIPLookup gl{};
  const int id = GeoIP_id_by_ipnum_gl(handle_->gi, address, &gl);
  return id > 0 && static_cast<std::size_t>(id) < code_by_id_.size() ? code_by_id_[id]
                                                                     : cidr::kNoMatch;
}

#else

struct GeoipCountryLookup::Handle {};

GeoipCountryLookup::GeoipCountryLookup(const std::string&)
    : reason_("built without libgeoip (apt-get install libgeoip-dev geoip-database)") {}
GeoipCountryLookup::~GeoipCountryLookup() = default;
cidr::CidrValue GeoipCountryLookup::lookup(std::uint32_t) const noexcept {
  return cidr::kNoMatch;
}

#endif

}  // namespace gatebench::peers
