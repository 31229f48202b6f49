#pragma once
// Where a corpus's vocabulary and documents came from: what a privacy claim may assume about
// them (SPEC §17, docs/PRIVACY.md §13). `dplda import-text` writes it beside docword.txt as
// provenance.json; `generate` writes it for its public vocabulary; a UCI corpus without the file
// is of unknown provenance (the claim then carries the caution "vocabulary assumed public").
#include <string>

#include "core/common/safe_file.h"
#include "core/common/status.h"

namespace dplda {

enum class VocabularyOrigin {
  Unknown,           // a corpus the tool did not build: its vocabulary is assumed public
  Public,            // a public list given by the user (or a synthetic corpus's word names)
  PrivateSelection,  // chosen by differentially private partition selection, charged (ε_v, δ_v)
  CorpusCounts,      // the most frequent words of this very corpus: not private (ε = ∞)
};
const char* vocabularyOriginName(VocabularyOrigin o);  // "unknown" | "public" | "private-selection" | "corpus-counts"

// The public parameters and the budget of a private vocabulary selection (docs/PRIVACY.md §13).
struct VocabularySelectionRecord {
  double epsilon = 0.0;
  double delta = 0.0;
  int maxWordsPerDocument = 0;  // m: the words one document may contribute
  double sensitivity = 0.0;     // √(2m): l2 change of the count vector when one document is replaced
  double sigma = 0.0;           // Gaussian noise on each word's document count
  double threshold = 0.0;       // a word is kept when its noisy count exceeds this
  std::string noiseSource;      // RandomSource::description(), or kReusedSelectionSource
};

// The noise source recorded for a selection reused from an earlier import of the same text
// (TextImportParams::releasedVocabulary): nothing was drawn, it is the same release.
inline constexpr const char* kReusedSelectionSource =
    "reused: the selection released at an earlier import of this text (one release)";

struct CorpusProvenance {
  VocabularyOrigin vocabulary = VocabularyOrigin::Unknown;
  std::string source;          // e.g. "import-text", "generate"
  std::string vocabularyFile;  // the public list (Public from a file)
  VocabularySelectionRecord selection;  // PrivateSelection only
  // Every document of the input counts in N: one left with fewer than 3 vocabulary tokens is an
  // empty document (zero contribution), so neighbouring inputs give the same N.
  bool shortDocumentsKept = false;

  bool vocabularyIsPrivate() const {
    return vocabulary == VocabularyOrigin::Public || vocabulary == VocabularyOrigin::PrivateSelection;
  }
};

// What a corpus's vocabulary does to a claim (docs/PRIVACY.md §13), shared by every model's
// statement: the reason a CorpusCounts vocabulary makes a run not private, the caution of an
// Unknown one, and the sentence naming a private selection's charge.
const char* vocabularyNotPrivateReason();
const char* vocabularyAssumedPublicCaution();
std::string vocabularyChargedText(const VocabularySelectionRecord& selection);

inline constexpr const char* kProvenanceFileName = "provenance.json";

// Writes / reads `dir`/provenance.json. Reading a folder without the file gives Unknown; a file
// that cannot be parsed is BadInput naming it and the field.
Status writeCorpusProvenance(const CorpusProvenance& provenance, const std::string& dir, const OutputRules& rules = {});
Result<CorpusProvenance> readCorpusProvenance(const std::string& dir);

}  // namespace dplda
