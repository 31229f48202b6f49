#pragma once
// The vocabulary of a text import (core/corpus/text_import.h): a public list, a private
// selection, or (not private) the most frequent words. Proof of the private rules:
// docs/PRIVACY.md §13.
#include <string>
#include <vector>

#include "core/common/random.h"
#include "core/common/status.h"
#include "core/corpus/text_import.h"

namespace dplda {

// A word becomes a line of vocab.txt, whose reader refuses lines of 1 MiB (uci_body.h): longer
// tokens never enter the vocabulary (a rule on the word alone), so import-text writes no file `run`
// refuses.
inline constexpr std::size_t kMaxImportedWordBytes = (std::size_t(1) << 20) - 1;

// The imported documents before a vocabulary: words by first-seen id, and each document as
// sorted runs of (id, count) in flat arrays (document n is [offsets[n], offsets[n+1])).
struct ImportedDocuments {
  const std::vector<std::string>& words;
  const std::vector<long long>& frequency;  // tokens of each word over all documents
  const std::vector<int>& docWords;
  const std::vector<int>& docCounts;
  const std::vector<std::size_t>& offsets;
  int documentCount() const { return static_cast<int>(offsets.size()) - 1; }
};

struct VocabularyChoice {
  std::vector<int> newId;          // imported id -> corpus column, -1 when not in the vocabulary
  std::vector<std::string> vocab;  // the corpus's words, by column
  CorpusProvenance provenance;
  long long candidateWords = 0;    // PrivateSelection: words with a positive contribution count
};

Result<VocabularyChoice> chooseVocabulary(const ImportedDocuments& docs, const TextImportParams& params,
                                          RandomSource* noise);

// The words one document contributes to the private selection: its m most frequent (ties in byte
// order of the word), as imported ids. A rule on that document alone.
std::vector<int> contributedWords(const ImportedDocuments& docs, int document, int m);

// A public vocabulary file: one word a line, order kept; UTF-8, no blank line inside, no
// duplicate, no white space or control character in a word. BadInput names the file and line.
Result<std::vector<std::string>> readVocabularyList(const std::string& path);

}  // namespace dplda
