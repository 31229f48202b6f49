#include "core/corpus/text_vocabulary.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <unordered_map>

#include "core/common/text_escape.h"

namespace dplda {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxVocabularyWordBytes = 4096;  // a token longer than this is not a word

VocabularyChoice fromWordList(const ImportedDocuments& docs, const std::vector<int>& ids) {
  VocabularyChoice c;
  c.newId.assign(docs.words.size(), -1);
  for (std::size_t r = 0; r < ids.size(); ++r) {
    c.newId[static_cast<std::size_t>(ids[r])] = static_cast<int>(r);
    c.vocab.push_back(docs.words[static_cast<std::size_t>(ids[r])]);
  }
  return c;
}

// A given word list as the vocabulary, in its order (a public file, or a released selection).
Result<VocabularyChoice> listedVocabulary(const ImportedDocuments& docs, std::vector<std::string> list,
                                          const std::string& what) {
  std::unordered_map<std::string_view, int> column;
  for (std::size_t r = 0; r < list.size(); ++r)
    if (!column.emplace(list[r], static_cast<int>(r)).second)
      return badInput(what + " lists the word " + quoteText(list[r]) + " twice");
  VocabularyChoice c;
  c.newId.assign(docs.words.size(), -1);
  for (std::size_t w = 0; w < docs.words.size(); ++w) {
    const auto it = column.find(docs.words[w]);
    if (it != column.end()) c.newId[w] = it->second;
  }
  c.vocab = std::move(list);
  return c;
}

Result<VocabularyChoice> publicVocabulary(const ImportedDocuments& docs, const TextImportParams& p) {
  auto list = readVocabularyList(p.vocabularyFile);
  if (!list.ok()) return list.status();
  auto listed = listedVocabulary(docs, std::move(list).value(), escapeText(p.vocabularyFile));
  if (!listed.ok()) return listed;
  VocabularyChoice c = std::move(listed).value();
  c.provenance.vocabulary = VocabularyOrigin::Public;
  c.provenance.vocabularyFile = fs::absolute(p.vocabularyFile).lexically_normal().string();
  return c;
}

Result<VocabularyChoice> privateVocabulary(const ImportedDocuments& docs, const TextImportParams& p,
                                           RandomSource* noise) {
  auto cal = calibrateVocabularySelection(p.selection, docs.documentCount());
  if (!cal.ok()) return cal.status();
  std::vector<long long> counts(docs.words.size(), 0);
  for (int n = 0; n < docs.documentCount(); ++n)
    for (int w : contributedWords(docs, n, p.selection.maxWordsPerDocument)) ++counts[static_cast<std::size_t>(w)];
  for (std::size_t w = 0; w < counts.size(); ++w)
    if (docs.words[w].size() > kMaxImportedWordBytes) counts[w] = 0;  // never a candidate
  const long long candidates = std::count_if(counts.begin(), counts.end(), [](long long x) { return x > 0; });
  if (!p.releasedVocabulary.empty()) {  // released before: the same release, nothing drawn (§13.5)
    auto listed = listedVocabulary(docs, p.releasedVocabulary, "the released vocabulary");
    if (!listed.ok()) return listed;
    listed->candidateWords = candidates;
    listed->provenance.vocabulary = VocabularyOrigin::PrivateSelection;
    listed->provenance.selection = cal.value();
    listed->provenance.selection.noiseSource = kReusedSelectionSource;
    return listed;
  }
  SecureRandom secure;
  RandomSource& rng = noise ? *noise : secure;
  std::vector<int> ids = selectVocabulary(counts, cal.value(), p.vocabSize, rng);
  // A public order: bytewise, never the (noisy) counts.
  std::sort(ids.begin(), ids.end(), [&](int a, int b) { return docs.words[a] < docs.words[b]; });
  VocabularyChoice c = fromWordList(docs, ids);
  c.candidateWords = candidates;
  c.provenance.vocabulary = VocabularyOrigin::PrivateSelection;
  c.provenance.selection = cal.value();
  c.provenance.selection.noiseSource = rng.description();
  return c;
}

VocabularyChoice countsVocabulary(const ImportedDocuments& docs, const TextImportParams& p) {
  std::vector<int> order(docs.words.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (docs.frequency[a] != docs.frequency[b]) return docs.frequency[a] > docs.frequency[b];
    return docs.words[a] < docs.words[b];
  });
  order.erase(std::remove_if(order.begin(), order.end(),
                             [&](int w) { return docs.words[w].size() > kMaxImportedWordBytes; }),
              order.end());
  order.resize(std::min<std::size_t>(order.size(), static_cast<std::size_t>(p.vocabSize)));
  VocabularyChoice c = fromWordList(docs, order);
  c.provenance.vocabulary = VocabularyOrigin::CorpusCounts;
  return c;
}

}  // namespace

std::vector<int> contributedWords(const ImportedDocuments& docs, int n, int m) {
  std::vector<int> ids;
  std::vector<std::size_t> entries(docs.offsets[n + 1] - docs.offsets[n]);
  std::iota(entries.begin(), entries.end(), docs.offsets[n]);
  const auto before = [&](std::size_t a, std::size_t b) {
    if (docs.docCounts[a] != docs.docCounts[b]) return docs.docCounts[a] > docs.docCounts[b];
    return docs.words[docs.docWords[a]] < docs.words[docs.docWords[b]];
  };
  const std::size_t keep = std::min(entries.size(), static_cast<std::size_t>(m));
  std::partial_sort(entries.begin(), entries.begin() + keep, entries.end(), before);
  for (std::size_t e = 0; e < keep; ++e) ids.push_back(docs.docWords[entries[e]]);
  return ids;
}

Result<VocabularyChoice> chooseVocabulary(const ImportedDocuments& docs, const TextImportParams& p,
                                          RandomSource* noise) {
  Result<VocabularyChoice> c = [&]() -> Result<VocabularyChoice> {
    switch (p.vocabularyRule) {
      case VocabularyRule::PublicFile: return publicVocabulary(docs, p);
      case VocabularyRule::PrivateSelection: return privateVocabulary(docs, p, noise);
      case VocabularyRule::CorpusCounts: return countsVocabulary(docs, p);
    }
    return invalidArgument("unknown vocabulary rule");
  }();
  if (!c.ok()) return c;
  c->provenance.source = "import-text";
  c->provenance.shortDocumentsKept = p.vocabularyRule != VocabularyRule::CorpusCounts;
  return c;
}

Result<std::vector<std::string>> readVocabularyList(const std::string& path) {
  std::error_code ec;
  const std::string name = escapeText(path);
  if (!fs::is_regular_file(path, ec)) return ioError("the vocabulary file " + name + " is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return ioError("cannot open the vocabulary file " + name);
  std::vector<std::string> words;
  std::unordered_map<std::string, long long> lineOf;
  std::string line;
  long long lineNo = 0, firstBlank = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (lineNo == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    const std::string where = name + " line " + std::to_string(lineNo);
    if (line.empty()) {
      if (!firstBlank) firstBlank = lineNo;
      continue;
    }
    if (firstBlank) return badInput(name + " line " + std::to_string(firstBlank) + " is empty: every line must name one word");
    if (line.size() > kMaxVocabularyWordBytes)
      return badInput(where + ": the word is longer than " + std::to_string(kMaxVocabularyWordBytes) + " bytes");
    const long long bad = findInvalidUtf8(line);
    if (bad >= 0) return badInput(where + ": invalid UTF-8 at byte " + std::to_string(bad + 1) + " of the line");
    if (hasControlText(line) || line.find_first_of(" \t\v\f") != std::string::npos)
      return badInput(where + ": the word " + quoteText(line) + " holds white space or a control character");
    const auto [it, inserted] = lineOf.emplace(line, lineNo);
    if (!inserted)
      return badInput(where + ": the word " + quoteText(line) + " is already on line " + std::to_string(it->second));
    if (static_cast<long long>(words.size()) >= kMaxVocabularySize)
      return badInput(name + " has more than " + std::to_string(kMaxVocabularySize) + " words");
    words.push_back(line);
  }
  if (in.bad()) return ioError("cannot read the vocabulary file " + name);
  if (words.empty()) return badInput("the vocabulary file " + name + " holds no words");
  return words;
}

}  // namespace dplda
