// core/common/keystream: ChaCha20 as RFC 8439 defines it, readable at any position, keyed from a
// RandomSource (4 words of it, no more).
#include <QtTest>

#include <vector>

#include "core/common/keystream.h"
#include "core/common/random.h"

using namespace dplda;

namespace {

// Bytes 8w .. 8w + 7 of a hex string, little-endian.
std::uint64_t wordOf(const char* hex, int w) {
  std::uint64_t x = 0;
  for (int b = 7; b >= 0; --b) {
    const char* p = hex + 2 * (8 * w + b);
    x = (x << 8) | std::stoul(std::string(p, 2), nullptr, 16);
  }
  return x;
}

}  // namespace

class TestKeystream : public QObject {
  Q_OBJECT
 private slots:
  void rfc8439Vectors() {
    // RFC 8439 A.1, test vectors 1 and 2: the all-zero key and nonce, block counters 0 and 1.
    const char* block0 =
        "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
        "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586";
    const char* block1 =
        "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
        "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f";
    const Keystream zero(std::array<unsigned char, 32>{});
    std::vector<std::uint64_t> w(16);
    zero.words(0, 16, w.data());
    for (int i = 0; i < 8; ++i) {
      QCOMPARE(w[static_cast<std::size_t>(i)], wordOf(block0, i));
      QCOMPARE(w[static_cast<std::size_t>(8 + i)], wordOf(block1, i));
    }
    // RFC 8439 A.1, test vector 3: key 00..01 (last byte 1), counter 1.
    std::array<unsigned char, 32> key{};
    key[31] = 1;
    const char* v3 =
        "3aeb5224ecf849929b9d828db1ced4dd832025e8018b8160b82284f3c949aa5a"
        "8eca00bbb4a73bdad192b5c42f73f2fd4e273644c8b36125a64addeb006c13a0";
    Keystream k3(key);
    k3.words(8, 8, w.data());
    for (int i = 0; i < 8; ++i) QCOMPARE(w[static_cast<std::size_t>(i)], wordOf(v3, i));
  }

  void anyPositionGivesTheSameWords() {
    // Read in one go or in pieces starting anywhere (across block boundaries): the same words.
    SeededRandom rng(11);
    const Keystream s(rng);
    std::vector<std::uint64_t> all(1000);
    s.words(0, all.size(), all.data());
    for (std::size_t first : {0u, 1u, 7u, 8u, 9u, 63u, 500u})
      for (std::size_t count : {1u, 2u, 15u, 64u, 333u}) {
        if (first + count > all.size()) continue;
        std::vector<std::uint64_t> part(count);
        s.words(first, count, part.data());
        QVERIFY(std::equal(part.begin(), part.end(), all.begin() + static_cast<std::ptrdiff_t>(first)));
      }
    // Far into the stream (block counter past 2^32: it carries into the nonce's first word).
    std::vector<std::uint64_t> far(24), head(8);
    const std::uint64_t at = (std::uint64_t{1} << 35) - 8;  // the last block below counter 2^32
    s.words(at, far.size(), far.data());
    s.words(at + 8, 8, head.data());
    QVERIFY(std::equal(head.begin(), head.end(), far.begin() + 8));
    QVERIFY(far[8] != all[0]);  // not the stream's start again
  }

  void keyIsFourWordsOfTheSource() {
    SeededRandom a(5), b(5), c(6);
    const Keystream sa(a), sb(b), sc(c);
    std::uint64_t x = 0, y = 0, z = 0;
    sa.words(3, 1, &x);
    sb.words(3, 1, &y);
    sc.words(3, 1, &z);
    QCOMPARE(x, y);  // a seed reproduces the stream
    QVERIFY(x != z);
    SeededRandom ref(5);
    for (int i = 0; i < 4; ++i) ref.nextU64();
    QCOMPARE(a.nextU64(), ref.nextU64());  // the source moved by exactly 4 words
  }
};

QTEST_APPLESS_MAIN(TestKeystream)
#include "tst_keystream.moc"
