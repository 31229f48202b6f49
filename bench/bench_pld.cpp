// bench_pld: the PLD accountant's cost on real ledgers (issue 25 §3's target: PLD accounting of a
// run <= 50 ms). Runs configurations 1, 2 and the whitened release on a figure-2 corpus (seeded
// noise), with and without a private vocabulary selection charged in front, and DP-VI ledgers of
// T releases; for each, times compareRunAccountants / compareDpViAccountants (Gaussian-DP and PLD
// beside the ledger's ε) and prints one JSON line: the three ε and the median time.
//
//   bench_pld [--docs N] [--repeats R]      (defaults: 20000, 15)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/common/random.h"
#include "core/corpus/synthetic_generator.h"
#include "core/experiments/presets.h"
#include "core/pipeline/accountant_comparison.h"
#include "core/pipeline/private_run.h"
#include "core/privacy/vocabulary_selection.h"
#include "core/vi/dp_vi.h"

using namespace dplda;

namespace {

double medianMs(int repeats, const std::function<void()>& f) {
  std::vector<double> ms;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void print(const std::string& name, double epsilon, const AccountantComparison& c, std::size_t releases, double ms) {
  std::printf("{\"bench\": \"pld\", \"case\": \"%s\", \"epsilon\": %g, \"releases\": %zu, \"%s\": %.6g, "
              "\"gaussian_dp\": %.6g, \"pld\": %.6g, \"delta\": %g, \"pld_interval\": %g, \"median_ms\": %.3f}\n",
              name.c_str(), epsilon, releases, c.ledgerAccountant.c_str(), c.ledger, c.gaussianDp, c.pld, c.delta,
              c.pldInterval, ms);
}

}  // namespace

int main(int argc, char** argv) {
  int docs = 20000, repeats = 15;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--docs")) docs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  auto data = generateLdaCorpus(figure2Generator(docs, 5, 1.0));
  if (!data.ok()) {
    std::fprintf(stderr, "%s\n", data.status().message().c_str());
    return 1;
  }
  SpectralPipeline pipeline;
  pipeline.setCorpus(std::make_shared<const Corpus>(data.value().corpus));
  SpectralOptions so;
  so.topicCount = 5;
  so.alpha0 = 1.0;
  pipeline.setOptions(so);
  CorpusProvenance vocabulary;
  vocabulary.vocabulary = VocabularyOrigin::PrivateSelection;
  vocabulary.selection = calibrateVocabularySelection({}, docs).value();

  struct Case {
    std::string name;
    Preset preset;
    bool whitened;
    Accountant accountant;
  };
  const std::vector<Case> cases = {{"config1/basic", Preset::Config1, false, Accountant::Basic},
                                   {"config1/gdp", Preset::Config1, false, Accountant::GaussianDp},
                                   {"config2/basic", Preset::Config2, false, Accountant::Basic},
                                   {"whitened/gdp", Preset::None, true, Accountant::GaussianDp}};
  for (const Case& c : cases) {
    for (double epsilon : {0.1, 1.0, 10.0}) {
      PrivacyOptions o;
      o.epsilon = epsilon;
      o.accountant = c.accountant;
      o.nonPrivateDiagnostics = false;
      if (c.whitened) {
        o.whitened.enabled = true;
        o.edges = (1u << 2) | (1u << 5) | (1u << 6);
      } else {
        o.edges = presetEdges(c.preset);
      }
      SeededRandom noise(1);
      auto r = runPrivate(pipeline, o, noise);
      if (!r.ok()) {
        std::fprintf(stderr, "%s: %s\n", c.name.c_str(), r.status().message().c_str());
        continue;
      }
      PrivateRunResult res = std::move(r.value());
      AccountantComparison out;
      double ms = medianMs(repeats, [&] { out = compareRunAccountants(res.ledger, res.epsilonSpent, res.deltaSpent); });
      print(c.name, epsilon, out, res.ledger.size(), ms);
      chargeVocabularySelection(res, vocabulary);
      ms = medianMs(repeats, [&] { out = compareRunAccountants(res.ledger, res.epsilonSpent, res.deltaSpent); });
      print(c.name + "+vocabulary", epsilon, out, res.ledger.size(), ms);
    }
  }
  for (long long releases : {20LL, 200LL}) {
    for (double epsilon : {0.1, 1.0, 10.0}) {
      auto cal = calibrateDpVi(epsilon, 1e-5, releases, 10.0, 5.0 * data.value().corpus.vocabSize());
      if (!cal.ok()) continue;
      DpViLedger L;
      L.releases = releases;
      L.sensitivity = cal.value().sensitivity;
      L.sigma = cal.value().sigma;
      L.draws = cal.value().draws;
      L.epsilon = epsilon + vocabulary.selection.epsilon;  // as fitDpVi charges the selection
      L.delta = 1e-5 + vocabulary.selection.delta;
      AccountantComparison out;
      const double ms = medianMs(repeats, [&] { out = compareDpViAccountants(L, vocabulary); });
      print("dp-vi T=" + std::to_string(releases) + "+vocabulary", epsilon, out, 2, ms);
    }
  }
  return 0;
}
