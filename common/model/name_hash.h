#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

// The hash the table's index finds a node's name by; burst memory keys pods and owners with it
// too. Part of the table's layout: changing it bumps kLayoutVersion.
namespace netscore::model {

// The 8-byte chunk of `name` at `at`, zero padded past the end. A fixed-size memcpy compiles to
// one load; the variable-size one for the tail would be a libc call per chunk.
inline std::uint64_t name_chunk(std::string_view name, std::size_t at) {
  std::uint64_t chunk = 0;
  if (name.size() - at >= 8) {
    std::memcpy(&chunk, name.data() + at, 8);
  } else {
    for (std::size_t i = at; i < name.size(); ++i) {
      chunk |= std::uint64_t{static_cast<unsigned char>(name[i])} << (8 * (i - at));
    }
  }
  return chunk;
}

// Hash of a node name over 8-byte little-endian chunks (zero padded), so the writer and the
// reader agree whatever buffer the name comes from. Part of the layout: changing it bumps
// kLayoutVersion.
inline std::uint64_t name_hash(std::string_view name) {
  std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ (name.size() * 0xC2B2AE3D27D4EB4FULL);
  for (std::size_t at = 0; at < name.size(); at += 8) {
    h = (h ^ name_chunk(name, at)) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 29;
  }
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  return h == 0 ? 1 : h;
}

}  // namespace netscore::model
