#pragma once
// Unwhitening and output (SPEC §6): from the tensor eigenpairs (λ_i, v_i) and the unwhitening
// matrix (Wᵀ)⁺ to α and the topic-word vectors, then the projection onto the simplex.
#include <Eigen/Dense>

#include "core/common/status.h"
#include "core/tensor/decomposer.h"

namespace dplda {

// The node U of the graph: unprojected topics and their weights.
struct UnwhitenedTopics {
  Eigen::VectorXd alpha;   // α_i = 4α0(α0+1) / ((α0+2)² λ_i²)
  Eigen::MatrixXd topics;  // d x k, μ_i = (Wᵀ)⁺ v_i (α0+2) λ_i / 2 (not yet on the simplex)
};

Result<UnwhitenedTopics> unwhiten(const TensorEigenpairs& eigenpairs, const Eigen::MatrixXd& unwhitening,
                                  double alpha0);

// Signs s (±1 per whitened coordinate) that put the tensor eigenvectors V, expressed in one
// sign frame of the whitened coordinates, into the frame of `unwhitening` (the two come from
// different releases, each canonicalised by its own rule). Start: each topic sums to one,
// 1ᵀ(Wᵀ)⁺ S v_i (α0+2) λ_i/2 = 1, solved for S with V orthogonal; then single flips while they
// reduce the negative mass of the unwhitened topics. Uses only its arguments (post-processing).
Eigen::VectorXd alignToUnwhitening(const TensorEigenpairs& eigenpairs, const Eigen::MatrixXd& unwhitening,
                                   double alpha0);

// The node OUT: every topic projected onto the probability simplex; α passed through.
Result<UnwhitenedTopics> projectTopicsToSimplex(const UnwhitenedTopics& u);

}  // namespace dplda
