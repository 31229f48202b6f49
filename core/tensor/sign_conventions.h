#pragma once
// Sign conventions for the whitened coordinates (docs/PRIVACY.md §3).
//
// The top-k eigenvectors of M̂2 have no sign of their own, so W, W⁺, T̂ and the decomposition
// are defined only up to a diagonal sign matrix S acting on the whitened coordinates. A release
// of one of them is private under the sign-aligned bounds only if everything computed after its
// noise is unchanged when S acts on the noisy value: each rule below is such a function (it
// maps X and S·X to the same result), and the private runner applies it right after the noise.
#include <Eigen/Dense>

#include "core/tensor/tensor3.h"

namespace dplda {

// s_i = sign(T_iii) (+1 at 0): applying it makes every diagonal entry >= 0, whatever S acted on T.
Eigen::VectorXd canonicalTensorSigns(const Tensor3& T);
// T(S, S, S) for S = diag(signs): entry (i, j, l) times s_i s_j s_l.
void applyCoordinateSigns(Tensor3& T, const Eigen::VectorXd& signs);
// s_c = sign of column c's sum (+1 at 0): for W, (Wᵀ)⁺ (d x k, one column per coordinate).
Eigen::VectorXd canonicalColumnSigns(const Eigen::MatrixXd& M);
// s_r = sign of row r's sum (+1 at 0): for the k x k matrix V of tensor eigenvectors (one row per coordinate).
Eigen::VectorXd canonicalRowSigns(const Eigen::MatrixXd& M);

}  // namespace dplda
