#include "core/privacy/budget.h"

#include <cmath>
#include <map>
#include <sstream>

namespace dplda {

bool needsSigmaK(Node node) {
  return node == Node::W || node == Node::T || node == Node::Wplus || node == Node::TD || node == Node::U;
}

bool needsGammaS(Node node) { return node == Node::TD || node == Node::U; }

std::vector<PlannedRelease> planReleases(EdgeSet noisy, bool shareReleases) {
  std::vector<PlannedRelease> nodeReleases;
  bool sigma = false, gamma = false;
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
    gamma = gamma || needsGammaS(r.node);
    nodeReleases.push_back(std::move(p));
  }
  std::vector<PlannedRelease> out;
  if (sigma) out.push_back({ReleaseKind::SigmaK, Node::M2, {}, "sigma_k lower bound (Procedure 1, step 1)"});
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
  std::vector<BudgetShare> out;
  for (double x : w) out.push_back({epsilon * x / total, delta * x / total});
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
