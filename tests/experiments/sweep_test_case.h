#pragma once
// A sweep case on a generated corpus, for the experiment tests.
#include <memory>
#include <string>

#include "core/corpus/synthetic_generator.h"
#include "core/experiments/sweep.h"

namespace sweep_test {

inline dplda::SyntheticCorpus makeCorpus(int d, int k, int N, std::uint64_t seed) {
  dplda::GeneratorParams g;
  g.vocabSize = d;
  g.topicCount = k;
  g.docCount = N;
  g.seed = seed;
  return dplda::generateLdaCorpus(g).value();
}

// The corpus given (with its truth), its true k and α0.
inline dplda::SweepCase loadedCase(const dplda::SyntheticCorpus& sc, const std::string& label = "small") {
  dplda::SweepCase c;
  c.label = label;
  c.source.corpus = std::make_shared<const dplda::Corpus>(sc.corpus);
  c.source.truth = sc.truth;
  c.source.description = "test corpus";
  c.topicCount = sc.truth.topicCount();
  c.alpha0 = sc.truth.alpha0();
  return c;
}

}  // namespace sweep_test
