#include "micro/peers/hpack_nghttp2.hpp"

#include <nghttp2/nghttp2.h>

#include <stdexcept>

namespace gatebench::peers {
namespace {

// Calls fn(nv) for each field of the block; false when nghttp2 rejects it.
template <typename Fn>
bool inflate(nghttp2_hd_inflater* inflater, std::string_view block, Fn&& fn) {
  const auto* in = reinterpret_cast<const std::uint8_t*>(block.data());
  std::size_t left = block.size();
  for (;;) {
    nghttp2_nv nv;
    int flags = 0;
    const auto used = nghttp2_hd_inflate_hd2(inflater, &nv, &flags, in, left, 1);
    if (used < 0) return false;
    in += used;
    left -= static_cast<std::size_t>(used);
    if (flags & NGHTTP2_HD_INFLATE_EMIT) fn(nv);
    if (flags & NGHTTP2_HD_INFLATE_FINAL) {
      nghttp2_hd_inflate_end_headers(inflater);
      return true;
    }
    if ((flags & NGHTTP2_HD_INFLATE_EMIT) == 0 && left == 0) return true;
  }
}

}  // namespace

NghttpInflater::NghttpInflater(std::size_t max_table_size) {
  if (nghttp2_hd_inflate_new(&inflater_) != 0) throw std::runtime_error("nghttp2_hd_inflate_new");
  set_max_table_size(max_table_size);
}

NghttpInflater::~NghttpInflater() {
  nghttp2_hd_inflate_del(inflater_);
}

void NghttpInflater::set_max_table_size(std::size_t limit) {
  nghttp2_hd_inflate_change_table_size(inflater_, limit);
}

bool NghttpInflater::count(std::string_view block, std::size_t& fields, std::size_t& bytes) {
  fields = 0;
  bytes = 0;
  return inflate(inflater_, block, [&](const nghttp2_nv& nv) {
    ++fields;
    bytes += nv.namelen + nv.valuelen;
  });
}

bool NghttpInflater::decode(std::string_view block, std::vector<HpackField>& out) {
  out.clear();
  return inflate(inflater_, block, [&](const nghttp2_nv& nv) {
    out.push_back({std::string(reinterpret_cast<const char*>(nv.name), nv.namelen),
                   std::string(reinterpret_cast<const char*>(nv.value), nv.valuelen),
                   (nv.flags & NGHTTP2_NV_FLAG_NO_INDEX) != 0});
  });
}

NghttpDeflater::NghttpDeflater(std::size_t max_table_size) {
  if (nghttp2_hd_deflate_new(&deflater_, max_table_size) != 0)
    throw std::runtime_error("nghttp2_hd_deflate_new");
}

NghttpDeflater::~NghttpDeflater() {
  nghttp2_hd_deflate_del(deflater_);
}

void NghttpDeflater::set_max_table_size(std::size_t limit) {
  nghttp2_hd_deflate_change_table_size(deflater_, limit);
}

std::string NghttpDeflater::encode(std::span<const HpackField> fields) {
  std::vector<nghttp2_nv> nva;
  nva.reserve(fields.size());
  for (const HpackField& f : fields) {
    nva.push_back({reinterpret_cast<std::uint8_t*>(const_cast<char*>(f.name.data())),
                   reinterpret_cast<std::uint8_t*>(const_cast<char*>(f.value.data())),
                   f.name.size(), f.value.size(),
                   static_cast<std::uint8_t>(f.never_indexed ? NGHTTP2_NV_FLAG_NO_INDEX
                                                             : NGHTTP2_NV_FLAG_NONE)});
  }
  std::string out(nghttp2_hd_deflate_bound(deflater_, nva.data(), nva.size()), '\0');
  const auto n = nghttp2_hd_deflate_hd(deflater_, reinterpret_cast<std::uint8_t*>(out.data()),
                                       out.size(), nva.data(), nva.size());
  if (n < 0) throw std::runtime_error("nghttp2_hd_deflate_hd");
  out.resize(static_cast<std::size_t>(n));
  return out;
}

}  // namespace gatebench::peers
