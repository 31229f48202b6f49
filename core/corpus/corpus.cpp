#include "core/corpus/corpus.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/corpus/mapped_file.h"

namespace dplda {

Result<Corpus> buildCorpus(int docCount, int vocabSize, const std::vector<CountTriplet>& triplets,
                           std::vector<std::string> vocab) {
  if (docCount < 0) return invalidArgument("document count must be >= 0, got " + std::to_string(docCount));
  if (vocabSize < 1) return invalidArgument("vocabulary size must be >= 1, got " + std::to_string(vocabSize));
  if (!vocab.empty() && static_cast<int>(vocab.size()) != vocabSize) {
    return badInput("vocabulary has " + std::to_string(vocab.size()) + " words but the counts use " +
                    std::to_string(vocabSize));
  }
  std::vector<Eigen::Triplet<double, int>> entries;
  entries.reserve(triplets.size());
  Eigen::VectorXd rowSums = Eigen::VectorXd::Zero(docCount);
  for (const CountTriplet& t : triplets) {
    if (t.doc < 0 || t.doc >= docCount || t.word < 0 || t.word >= vocabSize) {
      std::ostringstream msg;
      msg << "entry (doc " << t.doc << ", word " << t.word << ") is outside the " << docCount << " x "
          << vocabSize << " corpus";
      return badInput(msg.str());
    }
    if (!std::isfinite(t.count) || t.count <= 0.0 || t.count != std::floor(t.count)) {
      std::ostringstream msg;
      msg << "count " << t.count << " of (doc " << t.doc << ", word " << t.word
          << ") is not a positive integer";
      return badInput(msg.str());
    }
    rowSums[t.doc] += t.count;
    entries.emplace_back(t.doc, t.word, t.count);
  }
  // Map kept documents to consecutive rows.
  std::vector<int> newRow(docCount, -1);
  int kept = 0;
  for (int n = 0; n < docCount; ++n) {
    if (rowSums[n] >= kMinDocumentLength) newRow[n] = kept++;
  }
  for (auto& e : entries) e = Eigen::Triplet<double, int>(newRow[e.row()], e.col(), e.value());
  entries.erase(std::remove_if(entries.begin(), entries.end(), [](const auto& e) { return e.row() < 0; }),
                entries.end());

  Corpus corpus;
  corpus.counts.resize(kept, vocabSize);
  corpus.counts.setFromTriplets(entries.begin(), entries.end());  // sums duplicates
  corpus.counts.makeCompressed();
  corpus.lengths = corpus.counts * Eigen::VectorXd::Ones(vocabSize);
  corpus.droppedDocuments = docCount - kept;
  corpus.vocab = std::move(vocab);
  return corpus;
}

}  // namespace dplda

namespace dplda {

void MappedCounts::release(Eigen::Index from, Eigen::Index to) const {
  if (!file || to <= from || keepPages) return;
  file->releasePages(wordsAt + static_cast<std::size_t>(from) * 4, wordsAt + static_cast<std::size_t>(to) * 4);
  file->releasePages(countsAt + static_cast<std::size_t>(from) * 4, countsAt + static_cast<std::size_t>(to) * 4);
}

void keepDroppedAsEmpty(Corpus& corpus) {
  const int extra = corpus.droppedDocuments;
  if (extra <= 0) return;
  const Eigen::Index rows = corpus.docCount();
  if (corpus.mapped) {  // rows with no entries: their offsets are all the last one
    auto m = std::make_shared<MappedCounts>(*corpus.mapped);
    m->outer.resize(m->outer.size() + static_cast<std::size_t>(extra), m->outer.back());
    corpus.mapped = std::move(m);
  } else {
    corpus.counts.conservativeResize(rows + extra, corpus.counts.cols());  // rows with no entries
    corpus.counts.makeCompressed();
  }
  corpus.lengths.conservativeResize(rows + extra);
  corpus.lengths.tail(extra).setZero();
  corpus.emptyDocuments += extra;
  corpus.droppedDocuments = 0;
}

}  // namespace dplda
