#pragma once
// Seed 004's claims (Wang & Anandkumar), checked against the online-tpm and dp-tpm experiments
// like seed 002's (paper_claims.h): "reproduced", "not reproduced" or "not checked" with the
// reason. Each criterion with a tolerance states it in the claim's text.
#include <vector>

#include "core/experiments/dp_tpm.h"
#include "core/experiments/online_tpm.h"
#include "core/experiments/paper_claims.h"

namespace dplda {

// Corollary 3.1 as the experiment reads it: the online method's tensor error falls like 1/sqrt(n).
std::vector<PaperClaimCheck> onlineTpmClaims(const OnlineTpmResult& result);
// Theorem 4.2: the ε that recovers v1 grows with μ0, and with d not polynomially when μ0 is constant.
std::vector<PaperClaimCheck> dpTpmClaims(const DpTpmResult& result);

}  // namespace dplda
