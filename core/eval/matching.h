#pragma once
// Topic matching (SPEC §12): estimated topics are paired with reference topics by the
// Hungarian algorithm on l2 distance, so errors do not depend on the order of the topics.
#include <Eigen/Dense>
#include <vector>

namespace dplda {

// Minimum-cost assignment of every row to a distinct column (requires rows <= cols and finite
// costs; otherwise returns an empty vector). result[r] = column assigned to row r. O(r^2 c),
// Kuhn-Munkres with potentials (shortest augmenting paths), exact for any finite costs.
std::vector<int> hungarianAssignment(const Eigen::MatrixXd& cost);

// Pairwise l2 distances between columns: D(i, j) = ||reference_i - estimate_j||_2.
// Both d x k (same d); returns an empty matrix when the row counts differ.
Eigen::MatrixXd topicDistances(const Eigen::MatrixXd& reference, const Eigen::MatrixXd& estimate);

// matching[i] = column of `estimate` matched to reference topic i (minimising the total l2
// distance). Requires equal rows, reference.cols() <= estimate.cols() and finite entries;
// otherwise returns an empty vector.
std::vector<int> matchTopics(const Eigen::MatrixXd& reference, const Eigen::MatrixXd& estimate);

}  // namespace dplda
