#pragma once
// Euclidean projection onto the probability simplex {p : p >= 0, sum p = 1} (SPEC §6),
// by the sort-based algorithm of Duchi, Shalev-Shwartz, Singer and Chandra (ICML 2008).
#include <Eigen/Dense>

namespace dplda {

// argmin_p ||p - v||_2 over the simplex: p = max(v - tau, 0) with tau chosen so sum p = 1.
// Precondition: v is non-empty and every entry is finite (callers check, e.g. with
// v.allFinite()); for an empty v the result is empty, and non-finite input gives a vector
// of NaN of the same size so the violation is visible instead of silently plausible.
Eigen::VectorXd projectToSimplex(const Eigen::VectorXd& v);

// Projects every column of `m` (e.g. a d x k topic matrix); same precondition per column.
Eigen::MatrixXd projectColumnsToSimplex(const Eigen::MatrixXd& m);

}  // namespace dplda
