#pragma once
// Plain text -> bag-of-words corpus.
//
// Input: one file (one document per line, or, with a separator, documents spanning several
// lines and ending at a line equal to the separator, like fortune files' "%"), or a folder
// (its regular files sorted by name, each one document, or split at separator lines when a
// separator is given; sub-folders and hidden files are skipped). In a folder, files that are
// not UTF-8 text (binary indexes such as fortune's .dat files) are skipped and listed in the
// report, and a link to a file already read (fortune's .u8 links) is read once; a single file
// given as input must be valid UTF-8 without NUL bytes. Or one CSV, TSV or JSON Lines file whose
// records are the documents (TextImportParams::format). Any file may be gzip-compressed.
// Blank documents (only white space) are formatting, not
// documents: they are skipped and not counted, except a whole file in folder mode without a
// separator, which is a (dropped) document, and a CSV/TSV/JSON Lines record (every record is one).
//
// Tokenizer (UTF-8; invalid bytes are BadInput naming the file, line and byte offset):
//  - a token is a maximal run of word characters: ASCII letters, ASCII digits when
//    numbersAsTokens is set (otherwise digits separate words: "mp3" -> "mp"), and every
//    non-ASCII code point except the punctuation/symbol ranges listed in text_import.cpp
//    (Latin-1 punctuation U+0080-U+00BF, U+00D7, U+00F7, U+2000-U+206F, currency, arrows and
//    math symbols, CJK punctuation, BOM, emoji). Scripts without spaces (CJK) are not split.
//  - apostrophes split words ("don't" -> "don", "t"); so do hyphens and all ASCII punctuation.
//  - lowercase maps ASCII, Latin-1, Latin Extended-A, basic Greek and Cyrillic capitals.
//  - tokens shorter than minTokenLength code points are dropped, then English stop words
//    (an embedded ~180-word list, compared in lowercase).
// Vocabulary (SPEC §17, docs/PRIVACY.md §13), by one of three rules:
//  - PrivateSelection (the default): Gaussian partition selection (core/privacy/
//    vocabulary_selection.h) with its own (ε_v, δ_v), at most vocabSize words, in byte order;
//  - PublicFile: the words of a public list, one a line, in the file's order;
//  - CorpusCounts: the vocabSize most frequent words (ties in byte order), id 0 the most
//    frequent. Not private: one document can change the vocabulary; runs say so.
// Documents keep only vocabulary words. Under the two private rules every document read counts in
// N: one left with fewer than 3 tokens is kept as an empty document (Corpus::emptyDocuments), so
// that neighbouring inputs give the same N. Under CorpusCounts such documents are dropped.
#include <string>
#include <string_view>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/random.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"
#include "core/corpus/text_formats.h"
#include "core/privacy/vocabulary_selection.h"

namespace dplda {

enum class VocabularyRule { PrivateSelection, PublicFile, CorpusCounts };

struct TextImportParams {
  std::string input;  // a file or a folder
  int vocabSize = 5000;  // the most words kept (PrivateSelection, CorpusCounts)
  VocabularyRule vocabularyRule = VocabularyRule::PrivateSelection;
  std::string vocabularyFile;            // PublicFile: one word a line, order kept
  VocabularySelectionParams selection;   // PrivateSelection: (ε_v, δ_v) and m
  int minTokenLength = 2;  // in code points
  bool lowercase = true;
  bool removeStopWords = true;
  bool numbersAsTokens = false;
  std::string separator;  // when non-empty, a line equal to it ends a document (file and folder mode)
  // A single file's format (core/corpus/text_formats.h): Text is the line/separator modes above;
  // Csv, Tsv and JsonLines read the documents from `column` (a column or a JSON field) and their
  // ids from `idColumn` when given. Gzip-compressed input is read in every format and mode.
  TextFormat format = TextFormat::Text;
  std::string column;
  std::string idColumn;
  // PrivateSelection only: the words a selection already released for this same import (the app
  // keeps them: ui/worker/released_vocabularies.h). When given, they are the vocabulary and nothing
  // is drawn: reusing a released output is post-processing (docs/PRIVACY.md §13.5), so a text's
  // vocabulary costs (ε_v, δ_v) once however often it is imported. Words in no document keep an
  // empty column, as with a public list.
  std::vector<std::string> releasedVocabulary;
};

struct TextImportReport {
  int documentsRead = 0;             // documents found (blank ones in file mode excluded)
  int documentsKept = 0;             // rows of the corpus (empty documents included)
  int droppedDocuments = 0;          // fewer than 3 vocabulary tokens, dropped (CorpusCounts)
  int emptyDocuments = 0;            // fewer than 3 vocabulary tokens, kept empty (private rules)
  long long candidateWords = 0;      // PrivateSelection: words some document contributed (not private)
  long long tokens = 0;              // tokens after the length and stop-word filters
  long long tokensKept = 0;          // tokens in the corpus (vocabulary words in kept documents)
  int distinctWords = 0;             // distinct words among `tokens`, before the vocabulary cap
  long long shortTokensRemoved = 0;  // shorter than minTokenLength
  long long stopWordsRemoved = 0;
  int filesRead = 0;                      // folder mode: files imported
  int duplicateFiles = 0;                 // folder mode: links to a file already read
  std::vector<std::string> skippedFiles;  // folder mode: not UTF-8 text (names, sorted)
  int compressedFiles = 0;                // gzip files read
  // The id of each row of the corpus, in its order (written beside it: core/corpus/document_ids.h):
  // the id column or field; else the file name (folder, a document per file), "FILE:LINE"
  // (folder with a separator) or the line number (a file) of the document's first line.
  std::vector<std::string> documentIds;
  bool vocabularyReused = false;  // PrivateSelection: TextImportParams::releasedVocabulary was the vocabulary
};

// `selectionNoise` draws the private selection's noise (default: a new SecureRandom).
Result<Corpus> importText(const TextImportParams& params, TextImportReport* report = nullptr,
                          Feedback* feedback = nullptr, RandomSource* selectionNoise = nullptr);

// The tokenizer on one piece of text, with the options of `params` (input/vocabSize/separator
// are ignored). Invalid UTF-8 gives BadInput naming the byte offset.
Result<std::vector<std::string>> tokenizeText(std::string_view text, const TextImportParams& params);

// Offset of the first byte that is not part of a valid UTF-8 sequence (overlong forms,
// surrogates and code points above U+10FFFF are invalid), or -1 when `text` is valid.
long long findInvalidUtf8(std::string_view text);

// True for words of the embedded English stop-word list (expects lowercase ASCII).
bool isStopWord(std::string_view word);

}  // namespace dplda
