#pragma once
// The UI tests' session (a corpus small enough for a run plus its ε sweep in a second or two)
// and their shared helpers.
#include <QCoreApplication>
#include <QFile>
#include <QLineEdit>
#include <QStandardPaths>
#include <set>
#include <string>

#include "core/corpus/text_import.h"
#include "core/graph/computation_graph.h"
#include "ui/session/session.h"

namespace dplda::test {

// A window test's settings and recent files go to Qt's test locations, under its own name.
inline void useTestSettings(const char* testName) {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName("dplda-test");
  QCoreApplication::setApplicationName(testName);
}

// Types `text` into a line edit and commits it, as Return or leaving the field does.
inline void commitLine(QLineEdit* edit, const QString& text) {
  edit->setText(text);
  emit edit->editingFinished();
}

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

// A public vocabulary list of every word of the text file `textPath` (byte order), written to
// `listPath`: the app's text source takes a list or selects privately, and a private selection keeps
// nothing of a test's few hundred lines (docs/PRIVACY.md §13). Returns listPath, or "" on failure.
inline QString writeWordList(const QString& textPath, const QString& listPath) {
  QFile in(textPath);
  if (!in.open(QIODevice::ReadOnly)) return {};
  const auto tokens = tokenizeText(in.readAll().toStdString(), TextImportParams{});
  if (!tokens.ok()) return {};
  const std::set<std::string> words(tokens.value().begin(), tokens.value().end());
  QFile out(listPath);
  if (!out.open(QIODevice::WriteOnly)) return {};
  for (const std::string& w : words) out.write((w + "\n").c_str());
  return listPath;
}

}  // namespace dplda::test
