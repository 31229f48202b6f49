#pragma once
// The UI tests' session: a corpus small enough for a run plus its ε sweep in a second or two.
#include "core/graph/computation_graph.h"
#include "ui/session/session.h"

namespace dplda::test {

inline SessionState smallSession(Preset edges) {
  SessionState s;
  s.generator.vocabSize = 30;
  s.generator.topicCount = 3;
  s.generator.docCount = 3000;
  s.generator.meanLength = 60;
  s.generator.seed = 5;
  s.edges = presetEdges(edges);
  s.noiseSeed = 11;
  s.trials = 2;
  s.sweepEpsilons = "0.5:50:3";
  return s;
}

}  // namespace dplda::test
