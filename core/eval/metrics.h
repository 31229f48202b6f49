#pragma once
// Topic error metrics (SPEC §12). The same comparison gives the error (estimate vs the true
// topics) and the utility loss (private vs non-private output of the same corpus).
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "core/common/status.h"

namespace dplda {

struct TopicErrors {
  double l2Mean = 0.0;             // mean over reference topics i of ||ref_i - est_m(i)||_2
  double l1Mean = 0.0;             // mean l1 distance (twice the total variation distance)
  double alphaError = 0.0;         // mean |ref alpha_i - est alpha_m(i)|
  // ||ref - est_matched||_F over the whole d x k matrix: seed 000's Definition 21 (utility
  // loss / error in the Frobenius norm), = sqrt(sum_i l2PerTopic_i^2).
  double frobenius = 0.0;
  std::vector<int> matching;       // matching[i] = estimated topic paired with reference topic i
  std::vector<double> l2PerTopic;  // ||ref_i - est_m(i)||_2 for each reference topic
};

// Checks the inputs of compareTopics: equal row counts d >= 1, 1 <= k_ref <= k_est, alpha
// sizes equal to the topic counts, all entries finite. The message names the mismatch.
Status validateTopicComparison(const Eigen::MatrixXd& refTopics, const Eigen::VectorXd& refAlpha,
                               const Eigen::MatrixXd& estTopics, const Eigen::VectorXd& estAlpha);

// Matches estimated topics to reference topics (Hungarian on l2) and measures the distances.
// Precondition: validateTopicComparison(...) is ok. On invalid input every number is NaN and
// matching is empty (check with validateTopicComparison to get the reason).
TopicErrors compareTopics(const Eigen::MatrixXd& refTopics, const Eigen::VectorXd& refAlpha,
                          const Eigen::MatrixXd& estTopics, const Eigen::VectorXd& estAlpha);

// Indices of the n largest entries of v (n clamped to its size), largest first; ties by index.
std::vector<int> topIndices(const Eigen::VectorXd& v, int n);

}  // namespace dplda
