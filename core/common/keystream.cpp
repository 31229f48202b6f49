#include "core/common/keystream.h"

#include <openssl/evp.h>

#include <bit>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

namespace dplda {

namespace {

[[noreturn]] void cipherFailed() {
  // Like a getrandom failure: without the stream there is no noise, hence no release.
  throw std::runtime_error("ChaCha20 (OpenSSL) failed: the noise stream is unavailable");
}

// Fetched once: OpenSSL 3 looks a cipher up by name on every implicit use.
const EVP_CIPHER* chacha20() {
  static const EVP_CIPHER* cipher = [] {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
    return static_cast<const EVP_CIPHER*>(EVP_CIPHER_fetch(nullptr, "ChaCha20", nullptr));
#else
    return EVP_chacha20();
#endif
  }();
  if (!cipher) cipherFailed();
  return cipher;
}

}  // namespace

Keystream::Keystream(RandomSource& source) {
  for (int w = 0; w < 4; ++w) {
    const std::uint64_t x = source.nextU64();
    for (int b = 0; b < 8; ++b) m_key[static_cast<std::size_t>(8 * w + b)] = static_cast<unsigned char>(x >> (8 * b));
  }
}

void Keystream::words(std::uint64_t first, std::size_t count, std::uint64_t* out) const {
  if (count == 0) return;
  const std::uint64_t block = first / 8;
  const std::size_t skip = static_cast<std::size_t>(first % 8);
  const std::size_t blocks = (skip + count + 7) / 8;
  // OpenSSL's IV: the block counter's low 32 bits, then the nonce, whose first word takes the high
  // 32 bits (OpenSSL carries the counter into it: a 64-bit block counter, as in the original ChaCha).
  unsigned char iv[16] = {};
  for (int b = 0; b < 4; ++b) iv[b] = static_cast<unsigned char>(block >> (8 * b));
  for (int b = 0; b < 4; ++b) iv[4 + b] = static_cast<unsigned char>(block >> (32 + 8 * b));
  thread_local std::vector<unsigned char> bytes;
  bytes.assign(blocks * 64, 0);  // the keystream is the encryption of zeros
  std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  int written = 0;
  if (!ctx || EVP_EncryptInit_ex(ctx.get(), chacha20(), nullptr, m_key.data(), iv) != 1 ||
      EVP_EncryptUpdate(ctx.get(), bytes.data(), &written, bytes.data(), static_cast<int>(bytes.size())) != 1 ||
      static_cast<std::size_t>(written) != bytes.size())
    cipherFailed();
  const unsigned char* p = bytes.data() + 8 * skip;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out, p, 8 * count);
  } else {
    for (std::size_t w = 0; w < count; ++w) {
      std::uint64_t x = 0;
      for (int b = 7; b >= 0; --b) x = (x << 8) | p[8 * w + static_cast<std::size_t>(b)];
      out[w] = x;
    }
  }
}

}  // namespace dplda
