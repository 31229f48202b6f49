#pragma once
// A random stream readable at any position, so that many threads can draw disjoint parts of one
// noise stream and get the same values whatever their number: ChaCha20 (RFC 8439, OpenSSL's
// implementation) keyed with 256 bits drawn from a RandomSource.
//
// Why it keeps the source's properties: with SecureRandom the key comes from the kernel's CSPRNG,
// whose own output is a ChaCha20 keystream keyed from the entropy pool (Linux >= 4.8), so the
// stream is as unpredictable as getrandom's (ChaCha20 is a PRF in its key; 2^64 blocks per
// (key, nonce), far beyond any release here). With SeededRandom the key is the seed's next four
// words: the stream is reproducible and independent of the thread count. docs/PRIVACY.md §7.2.
#include <array>
#include <cstddef>
#include <cstdint>

#include "core/common/random.h"

namespace dplda {

class Keystream {
 public:
  // Draws the key: 4 words of `source`, the source's only use.
  explicit Keystream(RandomSource& source);
  // The stream of a given key (the RFC test vectors).
  explicit Keystream(const std::array<unsigned char, 32>& key) : m_key(key) {}

  // Words [first, first + count) of the stream, word w being its bytes 8w .. 8w + 7 read
  // little-endian (block b = words 8b .. 8b + 7, ChaCha20 with block counter b and a zero nonce).
  // Safe from any number of threads. Throws std::runtime_error if the cipher is unavailable (as
  // SecureRandom does when getrandom fails: no secure noise, no release).
  void words(std::uint64_t first, std::size_t count, std::uint64_t* out) const;

 private:
  std::array<unsigned char, 32> m_key{};
};

}  // namespace dplda
