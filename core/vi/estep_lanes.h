#pragma once
// The E-steps of many documents at once on a small vocabulary (internal to core/vi).
//
// Eight documents ride in the eight lanes of a packet: slot j of a lane holds the j-th distinct
// word of its document (count and the k values of B, gathered once per document), and the slots
// past a shorter document hold count 0, which adds exact zeros to its sums. Every operation is
// lane-wise, so a document's result depends neither on the documents that share its packet nor on
// the thread; a lane whose document has converged takes the next document at once (longest
// documents first, so lanes carry similar lengths). This pays when k <= 8: estep()'s topic-wide
// packets are then mostly padding, and one document's updates are a single dependent chain.
#include <Eigen/Dense>
#include <vector>

namespace dplda::vi_detail {

// True when estepDocuments is the faster E-step: 1 <= k <= 8.
bool documentLanesPay(int k);

struct DocumentJob {
  const int* words = nullptr;  // the document's distinct words (increasing) and their counts
  const double* counts = nullptr;
  int nnz = 0;
  double* gamma = nullptr;         // k values: the start, then the result
  double* expElogTheta = nullptr;  // k values out: exp(E[log θ]) of the final γ
  double* phiNorm = nullptr;       // nnz values out: Σ_i exp(E[log θ_i]) B_i,w_j + 1e-100
  int* iterations = nullptr;       // out: updates done
};

// Per-thread scratch: the lanes' slots (counts, φ-norms, gathered B), sized by the longest document.
class LaneScratch {
 public:
  std::vector<double> counts, phiNorm, weights;
};
LaneScratch& threadLaneScratch();  // thread_local

// estep() (estep.h) for every job: the same updates, stopping rule (mean |Δγ| < tolerance, or
// maxIterations >= 1 updates) and outputs. Σ_i runs in increasing i as in estep(); Σ_j over the
// document's words in two interleaved streams (even and odd j), so values agree with estep() to
// rounding, not bit for bit. Requires 1 <= B.rows() <= 8.
void estepDocuments(const Eigen::MatrixXd& B, const double* alpha, const DocumentJob* jobs, int count,
                    double tolerance, int maxIterations, LaneScratch& scratch);

}  // namespace dplda::vi_detail
