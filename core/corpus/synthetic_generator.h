#pragma once
// The synthetic LDA generator of SPEC §2: draws a ground truth (alpha, mu) and a corpus from it.
//
// Bit-identical for the same parameters and seed on every platform: all randomness comes from
// SeededRandom (mt19937_64) through the portable distributions of core/common/random.h.
// The truth is drawn from SeededRandom(seed) before any document, and the documents from the
// independent stream deriveSeed(seed, 1), so changing N or the length model keeps the truth.
#include <cstdint>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"

namespace dplda {

struct GeneratorParams {
  int vocabSize = 50;                                            // d
  int topicCount = 5;                                            // k, 1 <= k <= d
  int docCount = 20000;                                          // N
  double alpha0 = 1.0;                                           // sum of the Dirichlet prior
  enum class Prior { Random, Symmetric } prior = Prior::Random;  // alpha0*Dir(1_k) or alpha0/k each
  double beta = 0.1;         // topic concentration: mu_i ~ Dirichlet(beta * 1_d)
  double meanLength = 100;   // Poisson mean (conditioned on l >= 3), or the fixed length
  bool fixedLength = false;  // every document has exactly meanLength tokens (a whole number >= 3)
  std::uint64_t seed = 1;
};

// Checks every field; messages name the parameter and its value. Sizes whose corpus would not
// fit in memory (or would take hours to draw) give ResourceLimit, bad values InvalidArgument.
Status validateGeneratorParams(const GeneratorParams& params);

struct SyntheticCorpus {
  Corpus corpus;  // N x d counts, vocab "w0".."w{d-1}", droppedDocuments = 0
  LdaModel truth;
};

// Draws the truth and N documents (SPEC §2). Polls feedback every 1000 documents and returns
// Cancelled when asked to stop. Invalid parameters return the validation status.
Result<SyntheticCorpus> generateLdaCorpus(const GeneratorParams& params, Feedback* feedback = nullptr);

}  // namespace dplda
