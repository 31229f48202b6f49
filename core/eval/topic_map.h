#pragma once
// The numbers behind the topic browser (an intertopic distance map and relevance-ranked terms, as
// in LDAvis: Sievert & Shirley 2014; SPEC §18 "Relevance").
//
// Map: the Jensen–Shannon distances between the topics' word distributions, placed in 2-D by
// classical multidimensional scaling (principal coordinates, Gower 1966). LDAvis feeds the JS
// divergence itself to cmdscale; we use its square root, the JS distance, which is a metric that
// embeds isometrically in a Hilbert space (Fuglede & Topsøe 2004): the PCoA Gram matrix is then
// positive semi-definite, so the 2-D map is a true projection and its share of the spread is an
// honest number. Circles are sized by prevalence α_t/α₀ (the model's expected topic share).
//
// Relevance of word w to topic t: r = λ log p(w|t) + (1 − λ) log(p(w|t)/p(w)), λ ∈ [0, 1].
// λ = 1 ranks by probability in the topic, λ = 0 by lift. p(w) here is the model's own marginal
// Σ_t (α_t/α₀) p(w|t): for a private model that is post-processing of the release, whereas the
// corpus word frequencies (LDAvis' p(w)) are exact statistics of the private documents.
#include <Eigen/Dense>
#include <vector>

#include "core/common/status.h"
#include "core/corpus/corpus.h"

namespace dplda {

// Natural-log JS divergence between two distributions of the same size (entries ≥ 0, each summing
// to 1; 0 log 0 = 0). Symmetric, 0 iff p = q, at most ln 2 (disjoint supports). Precondition:
// the sizes agree (validated by topicMap); on a size mismatch the result is NaN.
double jensenShannonDivergence(const Eigen::VectorXd& p, const Eigen::VectorXd& q);

// k × k matrix of JS distances √JSD between the columns of a d × k topic matrix.
Eigen::MatrixXd jensenShannonDistances(const Eigen::MatrixXd& topics);

struct PrincipalCoordinates {
  Eigen::MatrixXd coordinates;  // n × dims; axis j scaled by √(eigenvalue j)
  Eigen::VectorXd eigenvalues;  // all n eigenvalues of the centred Gram matrix, largest first
  double explained = 0.0;       // share of the positive eigenvalues' sum in the first dims (1 for n ≤ 1)
};

// Classical MDS of an n × n distance matrix (square, symmetric, finite, ≥ 0, zero diagonal; the
// message names the first entry that is not): B = −½ J D⁽²⁾ J, coordinates = top eigenvectors ×
// √eigenvalue (negative eigenvalues give 0). Each axis' sign is fixed (its largest-magnitude
// coordinate positive, the first on ties) so the same distances always give the same picture.
// Points exactly embeddable in `dims` dimensions get their distances back exactly.
Result<PrincipalCoordinates> classicalScaling(const Eigen::MatrixXd& distances, int dims = 2);

// Checks a model for the browser: d ≥ 1, k ≥ 1, α of size k, finite, ≥ 0, summing to > 0, and every
// topic finite, ≥ 0, summing to 1 within 1e-6. The message names the topic/word and value.
Status validateBrowsableModel(const LdaModel& model);

// α_t/α₀ for every topic.
Eigen::VectorXd topicPrevalence(const LdaModel& model);
// p(w) = Σ_t (α_t/α₀) p(w|t): the model's marginal word distribution (d entries).
Eigen::VectorXd modelWordMarginal(const LdaModel& model);

// Relevance of every word to a topic (λ clamped to [0, 1]): log p(w|t) − (1 − λ) log p(w). Words
// with p(w|t) = 0 get −∞; at λ = 1 it is exactly log p(w|t) (p(w) plays no part).
Eigen::VectorXd termRelevance(const Eigen::VectorXd& topic, const Eigen::VectorXd& marginal, double lambda);
// The n most relevant words (n clamped to the words with p(w|t) > 0), most relevant first, ties by
// word id.
std::vector<int> relevantTerms(const Eigen::VectorXd& topic, const Eigen::VectorXd& marginal, double lambda, int n);

struct TopicMap {
  Eigen::MatrixXd distances;     // k × k JS distances
  PrincipalCoordinates map;      // k × 2
  Eigen::VectorXd prevalence;    // α_t/α₀
  Eigen::VectorXd marginal;      // p(w) from the model
};

// Everything the browser draws for one model; the model's validation status otherwise.
Result<TopicMap> topicMap(const LdaModel& model);

}  // namespace dplda
