#pragma once
// Small helpers shared by the core tests.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/common/random.h"
#include "core/corpus/corpus.h"
#include "core/corpus/synthetic_generator.h"
#include "core/linalg/packed_symmetric.h"
#include "core/moments/second_moment_columns.h"
#include "core/tensor/tensor3.h"

namespace dplda::test {

// The whitened release's M̃2 = M̂2 + E formed as the pipeline forms it (column by column in double,
// second_moment_columns.h), for a dense symmetric E, stored in Scalar.
template <class Scalar>
PackedSymmetric<Scalar> releasedSum(const SecondMomentOperator& op, const Eigen::MatrixXd& E) {
  PackedSymmetric<Scalar> out;
  SecondMomentColumns(op).withColumns([&](const SecondMomentColumns::AddColumn& add) {
    out = PackedSymmetric<Scalar>::fromLowerColumns(E.rows(), [&](Eigen::Index c, double* column) {
      for (Eigen::Index i = c; i < E.rows(); ++i) column[i - c] = E(i, c);
      add(c, column);
    });
  });
  return out;
}

inline double relativeError(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

inline double relativeError(const Tensor3& a, const Tensor3& b) {
  return (a - b).frobeniusNorm() / std::max(b.frobeniusNorm(), 1e-300);
}

// Population moments of SPEC §3 from a model.
inline Eigen::MatrixXd populationM2(const LdaModel& m) {
  const double a0 = m.alpha0();
  return m.topics * (m.alpha / (a0 * (a0 + 1.0))).asDiagonal() * m.topics.transpose();
}

inline Tensor3 populationM3(const LdaModel& m) {
  const double a0 = m.alpha0();
  return symmetricFromComponents(2.0 * m.alpha / (a0 * (a0 + 1.0) * (a0 + 2.0)), m.topics);
}

// A fixed model: alpha and topics chosen by hand-free but deterministic draws.
inline LdaModel randomModel(int d, int k, double alpha0, double beta, std::uint64_t seed) {
  SeededRandom rng(seed);
  LdaModel m;
  const std::vector<double> a = dirichlet(rng, std::vector<double>(k, 1.0));
  m.alpha = Eigen::Map<const Eigen::VectorXd>(a.data(), k) * alpha0;
  m.topics.resize(d, k);
  for (int i = 0; i < k; ++i) {
    const std::vector<double> mu = dirichlet(rng, std::vector<double>(d, beta));
    m.topics.col(i) = Eigen::Map<const Eigen::VectorXd>(mu.data(), d);
  }
  return m;
}

// Documents drawn from a model, independently of the product's generator: lengths uniform in
// [minLength, maxLength].
inline Corpus sampleCorpus(const LdaModel& m, int N, int minLength, int maxLength, std::uint64_t seed) {
  SeededRandom rng(seed);
  const int d = m.vocabSize(), k = m.topicCount();
  std::vector<AliasTable> topics;
  for (int i = 0; i < k; ++i) {
    topics.emplace_back(std::vector<double>(m.topics.col(i).data(), m.topics.col(i).data() + d));
  }
  const std::vector<double> alpha(m.alpha.data(), m.alpha.data() + k);
  std::vector<CountTriplet> triplets;
  for (int n = 0; n < N; ++n) {
    const AliasTable theta(dirichlet(rng, alpha));
    const int l = minLength + static_cast<int>(uniformIndex(rng, maxLength - minLength + 1));
    for (int t = 0; t < l; ++t) triplets.push_back({n, topics[theta.sample(rng)].sample(rng), 1.0});
  }
  auto c = buildCorpus(N, d, triplets);
  return std::move(c).value();
}

// A small synthetic LDA corpus (mean document length 20) from the project's generator.
inline Corpus smallLda(int d, int k, int N, std::uint64_t seed) {
  GeneratorParams g;
  g.vocabSize = d;
  g.topicCount = k;
  g.docCount = N;
  g.meanLength = 20;
  g.seed = seed;
  return generateLdaCorpus(g).value().corpus;
}

}  // namespace dplda::test
