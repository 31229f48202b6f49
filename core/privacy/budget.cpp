#include "core/privacy/budget.h"

#include <cmath>
#include <map>
#include <sstream>

namespace dplda {

const char* accountantName(Accountant a) { return a == Accountant::Basic ? "basic" : "gdp"; }

Result<Accountant> parseAccountant(const std::string& text) {
  if (text == "basic") return Accountant::Basic;
  if (text == "gdp" || text == "gaussian-dp") return Accountant::GaussianDp;
  return invalidArgument("accountant must be \"basic\" or \"gdp\", got \"" + text + "\"");
}

bool needsSigmaK(Node node) {
  return node == Node::W || node == Node::T || node == Node::Wplus || node == Node::TD || node == Node::U;
}

bool needsGammaS(Node node) { return node == Node::TD || node == Node::U; }

std::vector<PlannedRelease> planReleases(EdgeSet noisy, bool shareReleases, BoundSet bounds) {
  std::vector<PlannedRelease> nodeReleases;
  bool sigma = false, gap = false, gamma = false;
  for (const Release& r : releasesFor(noisy, shareReleases)) {
    PlannedRelease p;
    p.kind = ReleaseKind::Node;
    p.node = r.node;
    p.edges = r.edges;
    std::ostringstream name;
    name << nodeName(r.node) << " -> ";
    for (std::size_t i = 0; i < r.edges.size(); ++i) name << (i ? ", " : "") << nodeName(edge(r.edges[i]).to);
    name << " (";
    for (std::size_t i = 0; i < r.edges.size(); ++i) name << (i ? ", " : "") << "e" << r.edges[i];
    if (r.edges.size() > 1) name << ", one shared release";
    name << ")";
    p.name = name.str();
    sigma = sigma || needsSigmaK(r.node);
    gap = gap || needsEigengap(r.node, bounds);
    gamma = gamma || needsGammaS(r.node);
    nodeReleases.push_back(std::move(p));
  }
  std::vector<PlannedRelease> out;
  if (sigma) out.push_back({ReleaseKind::SigmaK, Node::M2, {}, "sigma_k lower bound (Procedure 1, step 1)"});
  if (gap) out.push_back({ReleaseKind::Eigengap, Node::M2, {}, "eigengap lower bound (Procedure 1, sound set)"});
  if (gamma) out.push_back({ReleaseKind::GammaS, Node::T, {}, "gamma_s lower bound (Procedure 1, step 2)"});
  out.insert(out.end(), nodeReleases.begin(), nodeReleases.end());
  return out;
}

Result<std::vector<BudgetShare>> splitBudget(double epsilon, double delta, int releases,
                                             const std::vector<double>& weights) {
  DPLDA_RETURN_IF_ERROR(validatePrivacyParameters(epsilon, delta));
  if (releases < 1) return invalidArgument("there are no releases to spend the budget on (the edge set is empty)");
  std::vector<double> w = weights;
  if (w.empty()) w.assign(releases, 1.0);
  if (static_cast<int>(w.size()) != releases) {
    return invalidArgument("the split has " + std::to_string(w.size()) + " weights but the edge set needs " +
                           std::to_string(releases) + " releases");
  }
  double total = 0.0;
  for (double x : w) {
    if (!std::isfinite(x) || x <= 0.0) {
      std::ostringstream msg;
      msg << "every split weight must be a finite number > 0, got " << x;
      return invalidArgument(msg.str());
    }
    total += x;
  }
  if (!std::isfinite(total)) return invalidArgument("the split weights are too large: their sum overflows");
  // Rounded to nearest, the shares x total_eps / sum(w) can sum to an ulp or two above the total
  // (basic composition would then overspend). A part list "fits" when both its real sum and the
  // ledger's left-to-right floating-point sum are <= the limit; the real sum's sign is exact via
  // Shewchuk's error-free expansion (as Python's math.fsum): non-overlapping partials of increasing
  // magnitude, the largest nonzero one carrying the sign.
  auto fits = [](const std::vector<double>& parts, double limit) {
    double running = 0.0;
    for (double p : parts) running += p;
    if (running > limit) return false;
    std::vector<double> partials;
    auto add = [&partials](double x) {
      std::size_t kept = 0;
      for (double y : partials) {
        if (std::abs(x) < std::abs(y)) {
          const double t = x;
          x = y;
          y = t;
        }
        const double hi = x + y;
        const double lo = y - (hi - x);
        if (lo != 0.0) partials[kept++] = lo;
        x = hi;
      }
      partials.resize(kept);
      partials.push_back(x);
    };
    for (double p : parts) add(p);
    add(-limit);
    for (auto it = partials.rbegin(); it != partials.rend(); ++it)
      if (*it != 0.0) return *it < 0.0;
    return true;  // exactly the limit
  };
  // Lowers every share by one ulp per round until the parts fit: equal weights keep equal shares,
  // and a round lowers the real sum by at least 2^-53 of it, so a few rounds suffice (each share then
  // stays within a relative ~1e-15 of its exact proportion; every ledger prefix sum fits too, since
  // adding positive numbers in order is monotone).
  auto settle = [&](std::vector<double>& parts, double limit, const char* name) -> Status {
    for (int round = 0; !fits(parts, limit); ++round) {
      if (round > 64 + 4 * releases)
        return numericalFailure(std::string("the ") + name + " shares could not be rounded to fit the total");
      for (double& p : parts) p = std::nextafter(p, 0.0);
    }
    for (double p : parts)
      if (!(p > 0.0)) {
        std::ostringstream msg;
        msg << "a split weight is too small against the others: its " << name << " share underflows to 0";
        return invalidArgument(msg.str());
      }
    return Status::ok();
  };
  std::vector<double> eps, del;
  for (double x : w) {
    eps.push_back(epsilon * x / total);
    del.push_back(delta * x / total);
  }
  DPLDA_RETURN_IF_ERROR(settle(eps, epsilon, "epsilon"));
  DPLDA_RETURN_IF_ERROR(settle(del, delta, "delta"));
  std::vector<BudgetShare> out;
  for (std::size_t i = 0; i < w.size(); ++i) out.push_back({eps[i], del[i]});
  return out;
}

Result<std::vector<double>> parseSplit(const std::string& text) {
  if (text.empty() || text == "uniform") return std::vector<double>{};
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const double x = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !std::isfinite(x) || x <= 0.0) {
      return invalidArgument("split weights must be positive numbers separated by commas, got '" + item + "'");
    }
    out.push_back(x);
  }
  return out;
}

}  // namespace dplda
