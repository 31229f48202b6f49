#include "core/corpus/text_import.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <numeric>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "core/common/number_text.h"
#include "core/common/safe_file.h"
#include "core/common/text_escape.h"
#include "core/corpus/text_vocabulary.h"

namespace dplda {

namespace fs = std::filesystem;

namespace {

constexpr long long kMaxFileBytes = 1LL << 30;  // folder mode reads one file at a time
constexpr std::size_t kMaxLineBytes = kMaxRecordBytes;  // one line (a document in line mode)
// Issue 28: every distinct token is kept (about 150 bytes each) until the vocabulary is chosen, so
// their number is bounded (64 MB of random text took 1.06 GB); 4x the largest vocabulary.
constexpr std::size_t kMaxDistinctTokens = 4 * static_cast<std::size_t>(kMaxVocabularySize);

// English stop words: the NLTK list with the contracted forms removed (apostrophes split words,
// so "don't" arrives as "don" + "t", both listed), plus a few very common modal words.
constexpr const char* kStopWords[] = {
    "i",       "me",         "my",       "myself",     "we",      "our",    "ours",    "ourselves", "you",
    "your",    "yours",      "yourself", "yourselves", "he",      "him",    "his",     "himself",   "she",
    "her",     "hers",       "herself",  "it",         "its",     "itself", "they",    "them",      "their",
    "theirs",  "themselves", "what",     "which",      "who",     "whom",   "this",    "that",      "these",
    "those",   "am",         "is",       "are",        "was",     "were",   "be",      "been",      "being",
    "have",    "has",        "had",      "having",     "do",      "does",   "did",     "doing",     "a",
    "an",      "the",        "and",      "but",        "if",      "or",     "because", "as",        "until",
    "while",   "of",         "at",       "by",         "for",     "with",   "about",   "against",   "between",
    "into",    "through",    "during",   "before",     "after",   "above",  "below",   "to",        "from",
    "up",      "down",       "in",       "out",        "on",      "off",    "over",    "under",     "again",
    "further", "then",       "once",     "here",       "there",   "when",   "where",   "why",       "how",
    "all",     "any",        "both",     "each",       "few",     "more",   "most",    "other",     "some",
    "such",    "no",         "nor",      "not",        "only",    "own",    "same",    "so",        "than",
    "too",     "very",       "s",        "t",          "can",     "will",   "just",    "don",       "should",
    "now",     "d",          "ll",       "m",          "o",       "re",     "ve",      "y",         "ain",
    "aren",    "couldn",     "didn",     "doesn",      "hadn",    "hasn",   "haven",   "isn",       "ma",
    "mightn",  "mustn",      "needn",    "shan",       "shouldn", "wasn",   "weren",   "won",       "wouldn",
    "would",   "could",      "also",     "us",         "may",     "might",  "must",    "shall",     "upon",
    "yet",     "ever",       "every",    "many",       "much"};

const std::unordered_set<std::string_view>& stopWordSet() {
  static const std::unordered_set<std::string_view> set(std::begin(kStopWords), std::end(kStopWords));
  return set;
}

// Decodes one code point of already validated UTF-8 at s[i]; advances i.
char32_t decode(std::string_view s, std::size_t& i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    ++i;
    return c;
  }
  int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
  char32_t cp = c & (0x3F >> extra);
  ++i;
  for (int k = 0; k < extra; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i++]) & 0x3F);
  return cp;
}

void encode(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Non-ASCII code points that separate words. Everything else >= 0x80 counts as a letter: a
// cheap rule that keeps accented Latin, Greek, Cyrillic, ... words whole without Unicode tables.
bool isNonLetterNonAscii(char32_t cp) {
  struct Range {
    char32_t lo, hi;
  };
  static constexpr Range kRanges[] = {
      {0x0080, 0x00BF},    // C1 controls, no-break space, Latin-1 punctuation and symbols
      {0x00D7, 0x00D7},    // multiplication sign
      {0x00F7, 0x00F7},    // division sign
      {0x2000, 0x206F},    // general punctuation (spaces, dashes, quotes, ellipsis)
      {0x20A0, 0x20CF},    // currency symbols
      {0x2190, 0x2BFF},    // arrows, maths, technical, box drawing, shapes, dingbats
      {0x3000, 0x303F},    // CJK symbols and punctuation
      {0xFE00, 0xFE0F},    // variation selectors
      {0xFEFF, 0xFEFF},    // byte order mark / zero-width no-break space
      {0xFF01, 0xFF20},    // full-width punctuation and digits
      {0xFF3B, 0xFF40},    // full-width punctuation
      {0xFF5B, 0xFF65},    // full-width punctuation
      {0xFFF0, 0xFFFF},    // specials
      {0x1F000, 0x1FAFF},  // emoji and pictographs
  };
  for (const Range& r : kRanges) {
    if (cp >= r.lo && cp <= r.hi) return true;
  }
  return false;
}

char32_t toLowerSimple(char32_t cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + 32;
  if (cp < 0xC0) return cp;
  if (cp <= 0xDE) return cp == 0xD7 ? cp : cp + 0x20;  // Latin-1 capitals
  if (cp >= 0x100 && cp <= 0x137) return cp | 1;       // Latin Extended-A: even capital, odd small
  if (cp >= 0x139 && cp <= 0x148) return (cp & 1) ? cp + 1 : cp;
  if (cp >= 0x14A && cp <= 0x177) return cp | 1;
  if (cp == 0x178) return 0xFF;
  if (cp >= 0x179 && cp <= 0x17E) return (cp & 1) ? cp + 1 : cp;
  if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) return cp + 0x20;  // Greek
  if (cp >= 0x410 && cp <= 0x42F) return cp + 0x20;                 // Cyrillic
  if (cp >= 0x400 && cp <= 0x40F) return cp + 0x50;
  return cp;
}

struct TokenFilters {
  long long shortTokens = 0;
  long long stopWords = 0;
};

// Calls emit(token) for each kept token of valid UTF-8 `text`.
template <class Emit>
void forEachToken(std::string_view text, const TextImportParams& p, TokenFilters& filters, Emit&& emit) {
  std::string token;
  std::string lowerAscii;
  int codePoints = 0;
  bool asciiOnly = true;
  auto finish = [&]() {
    if (codePoints == 0) return;
    if (codePoints < p.minTokenLength) {
      ++filters.shortTokens;
    } else {
      bool stop = false;
      if (p.removeStopWords && asciiOnly) {
        if (p.lowercase) {
          stop = isStopWord(token);
        } else {
          lowerAscii.assign(token);
          for (char& c : lowerAscii) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
          stop = isStopWord(lowerAscii);
        }
      }
      if (stop) {
        ++filters.stopWords;
      } else {
        emit(token);
      }
    }
    token.clear();
    codePoints = 0;
    asciiOnly = true;
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      const bool digit = c >= '0' && c <= '9';
      if (letter || (digit && p.numbersAsTokens)) {
        token += static_cast<char>((p.lowercase && c >= 'A' && c <= 'Z') ? c + 32 : c);
        ++codePoints;
      } else {
        finish();
      }
      continue;
    }
    char32_t cp = decode(text, i);
    if (isNonLetterNonAscii(cp)) {
      finish();
      continue;
    }
    if (p.lowercase) cp = toLowerSimple(cp);
    encode(cp, token);
    ++codePoints;
    asciiOnly = false;
  }
  finish();
}

Status checkTokenizerParams(const TextImportParams& p) {
  if (p.minTokenLength < 1) {
    return invalidArgument("minTokenLength must be >= 1, got " + std::to_string(p.minTokenLength));
  }
  return Status::ok();
}

// Document accumulation: words get ids on first sight; each document is stored as sorted
// (id, count) runs in flat arrays to keep memory near the size of the distinct-word table.
class DocumentSink {
 public:
  explicit DocumentSink(const TextImportParams& p) : m_params(p) { m_offsets.push_back(0); }

  void addDocument(std::string_view text, std::string id) {
    m_documentIds.push_back(std::move(id));
    m_ids.clear();
    forEachToken(text, m_params, m_filters, [this](const std::string& token) {
      if (m_words.size() >= kMaxDistinctTokens && !m_dictionary.count(token)) {
        m_tooManyWords = true;  // reported by build(); memory stays bounded meanwhile
        return;
      }
      auto [it, inserted] = m_dictionary.try_emplace(token, static_cast<int>(m_words.size()));
      if (inserted) {
        m_words.push_back(token);
        m_frequency.push_back(0);
      }
      ++m_frequency[it->second];
      m_ids.push_back(it->second);
    });
    m_tokens += static_cast<long long>(m_ids.size());
    std::sort(m_ids.begin(), m_ids.end());
    for (std::size_t a = 0; a < m_ids.size();) {
      std::size_t b = a;
      while (b < m_ids.size() && m_ids[b] == m_ids[a]) ++b;
      m_docWords.push_back(m_ids[a]);
      m_docCounts.push_back(static_cast<int>(b - a));
      a = b;
    }
    m_offsets.push_back(m_docWords.size());
  }

  int documentCount() const { return static_cast<int>(m_offsets.size()) - 1; }

  // The ids in the corpus's row order: buildCorpus keeps the documents with at least
  // kMinDocumentLength vocabulary tokens in their order, and keepDroppedAsEmpty appends the others.
  std::vector<std::string> rowIds(const std::vector<CountTriplet>& triplets, bool shortKept) {
    std::vector<double> length(documentCount(), 0.0);
    for (const CountTriplet& t : triplets) length[t.doc] += t.count;
    std::vector<std::string> ids;
    for (int n = 0; n < documentCount(); ++n)
      if (contributes(length[n])) ids.push_back(std::move(m_documentIds[n]));
    for (int n = 0; shortKept && n < documentCount(); ++n)
      if (!contributes(length[n])) ids.push_back(std::move(m_documentIds[n]));
    return ids;
  }

  Result<Corpus> build(TextImportReport& report, RandomSource* noise) {
    report.documentsRead = documentCount();
    report.tokens = m_tokens;
    report.distinctWords = static_cast<int>(m_words.size());
    report.shortTokensRemoved = m_filters.shortTokens;
    report.stopWordsRemoved = m_filters.stopWords;
    if (m_tooManyWords) {
      return Status(StatusCode::ResourceLimit,
                    escapeText(m_params.input) + " holds more than " + std::to_string(kMaxDistinctTokens) +
                        " distinct tokens, the most import-text keeps while it chooses the vocabulary (each is held "
                        "in memory until then); split the input or raise --min-token-length");
    }
    if (m_words.empty()) {
      return badInput("no words left in " + escapeText(m_params.input) + " after tokenization (" +
                      std::to_string(report.documentsRead) + " documents, " +
                      std::to_string(m_filters.shortTokens) + " short tokens and " +
                      std::to_string(m_filters.stopWords) + " stop words removed)");
    }
    const ImportedDocuments docs{m_words, m_frequency, m_docWords, m_docCounts, m_offsets};
    auto choice = chooseVocabulary(docs, m_params, noise);
    if (!choice.ok()) return choice.status();
    const std::vector<int>& newId = choice->newId;
    const int v = static_cast<int>(choice->vocab.size());
    if (v == 0) {
      return badInput("the private vocabulary selection kept no word of " + escapeText(m_params.input) +
                      " (threshold " + shortNumber(choice->provenance.selection.threshold) +
                      " documents with noise sigma " + shortNumber(choice->provenance.selection.sigma) +
                      "): use more documents, a larger --vocab-epsilon, fewer --vocab-words-per-doc, or a "
                      "public --vocabulary file");
    }
    report.candidateWords = choice->candidateWords;
    report.vocabularyReused =
        m_params.vocabularyRule == VocabularyRule::PrivateSelection && !m_params.releasedVocabulary.empty();
    std::vector<CountTriplet> triplets;
    for (int n = 0; n < documentCount(); ++n) {
      for (std::size_t e = m_offsets[n]; e < m_offsets[n + 1]; ++e) {
        const int id = newId[m_docWords[e]];
        if (id >= 0) triplets.push_back({n, id, static_cast<double>(m_docCounts[e])});
      }
    }
    auto corpus = buildCorpus(documentCount(), v, triplets, std::move(choice->vocab));
    if (!corpus.ok()) return corpus.status();
    corpus->provenance = std::move(choice->provenance);
    if (corpus->provenance.shortDocumentsKept) keepDroppedAsEmpty(corpus.value());
    report.documentIds = rowIds(triplets, corpus->provenance.shortDocumentsKept);
    report.documentsKept = corpus->docCount();
    report.droppedDocuments = corpus->droppedDocuments;
    report.emptyDocuments = corpus->emptyDocuments;
    report.tokensKept = static_cast<long long>(corpus->lengths.sum());
    if (corpus->maxLength() > static_cast<double>(kMaxDocumentLength)) {  // the UCI reader would refuse it
      return Status(StatusCode::ResourceLimit,
                    "a document of " + escapeText(m_params.input) + " has " +
                        std::to_string(static_cast<long long>(corpus->maxLength())) + " vocabulary tokens, more than " +
                        std::to_string(kMaxDocumentLength) + ", the most a document may hold; split it");
    }
    if (corpus->contributingDocCount() == 0) {
      return badInput("no documents with at least " + std::to_string(kMinDocumentLength) +
                      " vocabulary tokens in " + escapeText(m_params.input) + " (" +
                      std::to_string(report.documentsRead) + " documents read, all dropped)");
    }
    return corpus;
  }

 private:
  const TextImportParams& m_params;
  TokenFilters m_filters;
  std::unordered_map<std::string, int> m_dictionary;
  std::vector<std::string> m_words;
  std::vector<long long> m_frequency;
  std::vector<int> m_ids;
  std::vector<int> m_docWords, m_docCounts;
  std::vector<std::size_t> m_offsets;
  std::vector<std::string> m_documentIds;
  long long m_tokens = 0;
  bool m_tooManyWords = false;
};

bool isBlankText(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
  });
}

// One document per line, or multi-line documents ended by the separator line. `size` (bytes,
// 0 when unknown) only scales the progress.
// A document's id is idPrefix followed by the number of its first line. `input` (may be null)
// gives the progress of a file.
Status readLines(std::istream& in, const std::string& name, const std::string& idPrefix, const TextInput* input,
                 const TextImportParams& p, DocumentSink& sink, Feedback* feedback) {
  std::string line, document;
  long long lineNo = 0, offset = 0, documentLine = 1;
  auto flushDocument = [&]() {
    if (!isBlankText(document)) sink.addDocument(document, idPrefix + std::to_string(documentLine));
    document.clear();
    documentLine = lineNo + 1;
  };
  bool tooLong = false;
  while (getLineBounded(in, line, kMaxLineBytes, tooLong)) {
    ++lineNo;
    DPLDA_RETURN_IF_ERROR(checkRecordText(line, name, lineNo, offset));
    offset += static_cast<long long>(line.size()) + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (p.separator.empty()) {
      if (!isBlankText(line)) sink.addDocument(line, idPrefix + std::to_string(lineNo));
    } else if (line == p.separator) {
      flushDocument();
    } else {
      if (document.empty()) documentLine = lineNo;
      if (document.size() + line.size() >= static_cast<std::size_t>(kMaxFileBytes)) {
        return Status(StatusCode::ResourceLimit, name + " line " + std::to_string(lineNo) +
                                                     ": a document (lines up to a separator line) longer than 1 GiB");
      }
      document += line;
      document += '\n';
    }
    if ((lineNo & 1023) == 0) {
      if (isCanceled(feedback)) return cancelled();
      if (input && input->fileSize() > 0) reportProgress(feedback, 0.9 * input->fileBytesRead() / input->fileSize());
    }
  }
  if (input) DPLDA_RETURN_IF_ERROR(input->status());
  if (tooLong) {
    return Status(StatusCode::ResourceLimit, name + " line " + std::to_string(lineNo + 1) + " is longer than " +
                                                 std::to_string(kMaxLineBytes >> 20) + " MiB");
  }
  if (in.bad()) return ioError("cannot read " + name + ": " + std::strerror(errno));
  if (!p.separator.empty()) flushDocument();
  return Status::ok();
}

// A single file in any format, gzip-compressed or not.
Status readSingleFile(const TextImportParams& p, DocumentSink& sink, TextImportReport& report, Feedback* feedback) {
  auto opened = openTextInput(p.input);
  if (!opened.ok()) return opened.status();
  TextInput& input = *opened.value();
  if (input.compressed()) report.compressedFiles = 1;
  const std::string name = escapeText(p.input);
  auto add = [&sink](std::string_view text, std::string id) { sink.addDocument(text, std::move(id)); };
  const RecordFields fields{p.column, p.idColumn};
  Status st;
  switch (p.format) {
    case TextFormat::Csv: st = readDelimitedRecords(input.stream(), name, ',', fields, add, feedback); break;
    case TextFormat::Tsv: st = readDelimitedRecords(input.stream(), name, '\t', fields, add, feedback); break;
    case TextFormat::JsonLines: st = readJsonLines(input.stream(), name, fields, add, feedback); break;
    default: return readLines(input.stream(), name, "", &input, p, sink, feedback);
  }
  DPLDA_RETURN_IF_ERROR(input.status());  // a damaged gzip stream ends the records early
  return st;
}

}  // namespace

bool isStopWord(std::string_view word) { return stopWordSet().count(word) > 0; }

long long findInvalidUtf8(std::string_view s) {
  char32_t cp;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t length = decodeUtf8(s, i, cp);
    if (length == 0) return static_cast<long long>(i);
    i += length;
  }
  return -1;
}

Result<std::vector<std::string>> tokenizeText(std::string_view text, const TextImportParams& params) {
  DPLDA_RETURN_IF_ERROR(checkTokenizerParams(params));
  const long long bad = findInvalidUtf8(text);
  if (bad >= 0) return badInput("invalid UTF-8 at byte offset " + std::to_string(bad));
  std::vector<std::string> tokens;
  TokenFilters filters;
  forEachToken(text, params, filters, [&](const std::string& t) { tokens.push_back(t); });
  return tokens;
}

Result<Corpus> importText(const TextImportParams& params, TextImportReport* reportOut, Feedback* feedback,
                          RandomSource* selectionNoise) {
  if (params.input.empty()) return invalidArgument("the text input path is empty");
  if (params.vocabSize < 1 || params.vocabSize > kMaxVocabularySize)
    return invalidArgument("vocabSize must be in 1.." + std::to_string(kMaxVocabularySize) + ", got " +
                           std::to_string(params.vocabSize));
  DPLDA_RETURN_IF_ERROR(checkTokenizerParams(params));
  if (params.separator.find_first_of("\r\n") != std::string::npos) {
    return invalidArgument("separator must be a single line, got one containing a line break");
  }
  const fs::path input(params.input);
  std::error_code ec;
  if (!fs::exists(input, ec)) return ioError("text input not found: " + escapeText(params.input));
  // The vocabulary's own parameters are checked before any text is read.
  if (params.vocabularyRule == VocabularyRule::PublicFile) {
    if (params.vocabularyFile.empty()) return invalidArgument("a public vocabulary needs a vocabulary file");
    if (!fs::is_regular_file(params.vocabularyFile, ec))
      return ioError("the vocabulary file " + escapeText(params.vocabularyFile) + " is not a regular file");
  } else if (params.vocabularyRule == VocabularyRule::PrivateSelection) {
    auto cal = calibrateVocabularySelection(params.selection, 1);
    if (!cal.ok()) return cal.status();
  }
  if (!fs::is_directory(input, ec)) DPLDA_RETURN_IF_ERROR(requireRegularFile(params.input));  // issue 28
  if (params.format == TextFormat::Text && !(params.column.empty() && params.idColumn.empty())) {
    return invalidArgument("a column or field is read from a CSV, TSV or JSON Lines file, not from plain text");
  }
  if (params.format != TextFormat::Text) {
    const std::string what = params.format == TextFormat::JsonLines ? "field" : "column";
    if (fs::is_directory(input, ec))
      return invalidArgument("a " + std::string(textFormatName(params.format)) + " input is one file, not a folder: " +
                             escapeText(params.input));
    if (params.column.empty()) return invalidArgument("a " + std::string(textFormatName(params.format)) + " input needs the " + what + " that holds the documents");
    if (!params.separator.empty()) return invalidArgument("a separator applies to plain text, not to " + std::string(textFormatName(params.format)));
  }

  DocumentSink sink(params);
  TextImportReport report;
  if (fs::is_directory(input, ec)) {
    std::vector<fs::path> files;
    for (fs::directory_iterator it(input, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& f = it->path();
      const std::string leaf = f.filename().string();
      if (!leaf.empty() && leaf[0] == '.') continue;
      if (it->is_regular_file(ec)) files.push_back(f);
    }
    if (ec) return ioError("cannot list the folder " + escapeText(params.input) + ": " + ec.message());
    std::sort(files.begin(), files.end());
    if (files.empty()) return badInput("the folder " + escapeText(params.input) + " holds no files to import");
    std::string text;
    std::set<fs::path> seen;  // canonical paths: a link to a file already read is read once
    std::string firstSkipReason;
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (isCanceled(feedback)) return cancelled();
      if (!seen.insert(fs::weakly_canonical(files[i], ec)).second) {
        ++report.duplicateFiles;
        continue;
      }
      bool compressed = false;
      const Status st = readWholeTextFile(files[i].string(), text, kMaxFileBytes, &compressed);
      // Not UTF-8 text (e.g. a binary index beside the text files): skipped, and reported.
      if (st.code() == StatusCode::BadInput || text.find('\0') != std::string::npos) {
        report.skippedFiles.push_back(files[i].filename().string());
        if (firstSkipReason.empty())
          firstSkipReason = st.isOk() ? escapeText(files[i].string()) + " holds NUL bytes (binary)" : st.message();
        continue;
      }
      DPLDA_RETURN_IF_ERROR(st);
      ++report.filesRead;
      report.compressedFiles += compressed ? 1 : 0;
      const std::string leaf = files[i].filename().string();
      if (params.separator.empty()) {
        sink.addDocument(text, leaf);
      } else {
        std::istringstream lines(text);
        DPLDA_RETURN_IF_ERROR(readLines(lines, escapeText(files[i].string()), leaf + ":", nullptr, params, sink, nullptr));
      }
      reportProgress(feedback, 0.9 * (i + 1) / files.size());
    }
    if (report.filesRead == 0) {
      return badInput("the folder " + escapeText(params.input) + " holds no UTF-8 text files (" +
                      std::to_string(report.skippedFiles.size()) + " skipped; the first: " + firstSkipReason + ")");
    }
    if (sink.documentCount() == 0) return badInput("no documents in the text files of " + escapeText(params.input));
  } else {
    DPLDA_RETURN_IF_ERROR(readSingleFile(params, sink, report, feedback));
    if (sink.documentCount() == 0)
      return badInput("no documents in " + escapeText(params.input) + " (it is empty or blank)");
  }
  if (isCanceled(feedback)) return cancelled();
  auto corpus = sink.build(report, selectionNoise);
  if (reportOut) *reportOut = report;
  reportProgress(feedback, 1.0);
  return corpus;
}

}  // namespace dplda
