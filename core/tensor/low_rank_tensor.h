#pragma once
// T = Σ_i λ_i v_i⊗v_i⊗v_i seen through its contractions: T(I, u, u) = V diag(λ) (Vᵀu)∘(Vᵀu) in
// O(d k) per vector instead of d³ storage (the synthetic tensors of the dp-tpm experiment).
#include <Eigen/Dense>

#include "core/tensor/decomposer.h"

namespace dplda {

class LowRankTensorOperator final : public SymmetricTensorOperator {
 public:
  // V is d x k (its columns are the v_i), lambda has k entries.
  LowRankTensorOperator(Eigen::VectorXd lambda, Eigen::MatrixXd V) : m_lambda(std::move(lambda)), m_V(std::move(V)) {}
  int dim() const override { return static_cast<int>(m_V.rows()); }
  Eigen::MatrixXd contractTwice(const Eigen::MatrixXd& U) const override {
    const Eigen::MatrixXd P = m_V.transpose() * U;  // k x m
    return m_V * (m_lambda.asDiagonal() * P.cwiseProduct(P));
  }
  const Eigen::VectorXd& lambda() const { return m_lambda; }
  const Eigen::MatrixXd& V() const { return m_V; }

 private:
  Eigen::VectorXd m_lambda;
  Eigen::MatrixXd m_V;
};

}  // namespace dplda
