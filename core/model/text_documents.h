#pragma once
// Plain text as documents for `dplda infer --input`: the layouts of `dplda import-text` (a file
// with one document per line, or documents ended by a separator line; a folder with one
// document per file, sorted by name, hidden files, sub-folders and non-UTF-8 files skipped),
// tokenized by the project's tokenizer (tokenizeText, core/corpus/text_import.h) and counted
// against a GIVEN vocabulary (the model's): words not in it are dropped and counted, no document
// is dropped or reordered, whatever its length. Each document keeps an id: its line number
// (file), its file name (folder), or "name:line" (folder with a separator).
#include <string>
#include <vector>

#include "core/common/status.h"
#include "core/corpus/corpus.h"
#include "core/corpus/text_import.h"

namespace dplda {

struct TextDocuments {
  Corpus corpus;                    // N x d counts over the given vocabulary (vocab = it)
  std::vector<std::string> ids;     // N document ids
  long long tokens = 0;             // tokens after the tokenizer's filters
  long long tokensOutOfVocabulary = 0;  // of those, not in the vocabulary (dropped)
  int distinctOutOfVocabulary = 0;
  std::vector<std::string> skippedFiles;  // folder: not UTF-8 text
};

// `tokenizer`: the tokenizer options (minTokenLength, lowercase, removeStopWords, numbersAsTokens)
// and the separator; its input, vocabulary rule and size are not used. BadInput / IoError naming
// the file and line (invalid UTF-8, no documents), ResourceLimit for a file over 1 GiB.
Result<TextDocuments> readTextDocuments(const std::string& input, const std::vector<std::string>& vocabulary,
                                        const TextImportParams& tokenizer);

}  // namespace dplda
