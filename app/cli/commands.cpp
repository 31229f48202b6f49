#include "app/cli/commands.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "app/cli/arguments.h"
#include "app/cli/json_output.h"
#include "app/cli/output_paths.h"
#include "core/common/text_escape.h"
#include "core/corpus/document_ids.h"
#include "core/corpus/synthetic_generator.h"
#include "core/corpus/text_import.h"
#include "core/corpus/truth_io.h"
#include "core/corpus/uci_io.h"
#include "core/eval/metrics.h"
#include "core/pipeline/private_run.h"
#include "core/pipeline/spectral_pipeline.h"
#include "core/privacy/budget.h"

namespace dplda::cli {

void require(const Status& status) {
  switch (status.code()) {
    case StatusCode::Ok: return;
    case StatusCode::InvalidArgument:
    case StatusCode::BadInput:
    case StatusCode::IoError:
    case StatusCode::ResourceLimit: throw InputError(status.message());
    default: throw RunError(status.toString());
  }
}

std::string usageText() {
  return R"(dplda - differentially private spectral LDA (DP-LDA Explorer command line)

Commands:
  dplda generate --vocab D --topics K --docs N [--alpha0 A] [--prior random|symmetric]
                 [--beta B] [--doc-length L] [--fixed-length] [--seed S] --out DIR [--force]
      Draws a synthetic LDA corpus; writes DIR/docword.txt, DIR/vocab.txt, DIR/truth.json.
  dplda import-text --input PATH --out DIR [--force] (--vocab D [--vocab-epsilon E] [--vocab-delta D]
                 [--vocab-words-per-doc M] [--vocab-noise-seed S] | --vocabulary FILE |
                 --vocab D --vocab-from-counts) [--min-token-length M]
                 [--separator LINE] [--keep-stopwords] [--keep-case] [--numbers]
                 [--column NAME [--id-column NAME] | --field NAME [--id-field NAME]] [--format text|csv|tsv|jsonl]
      Turns plain text (a file with one document per line, or a folder with one document
      per file) into the UCI bag-of-words files, provenance.json and documents.txt (the id of
      each document: the file name, or the line number). --separator '%' ends a
      document at every '%' line instead (fortune files; also in every file of a folder). In
      a folder, files that are not UTF-8 text are skipped and listed, and links are read once.
      --column NAME reads the documents from a column of a CSV file (RFC 4180 quoting; a TSV
      file when its name ends .tsv or with --format tsv), --field NAME from a field of JSON
      Lines (one object a line; .jsonl or --format jsonl); --id-column/--id-field take the ids
      from another column or field (default: the record's line number). Any input may be
      gzip-compressed (recognised by its first bytes). scripts/text_presets.sh builds real-text
      corpora from Debian packages (descriptions, fortunes, the KJV Bible, manual pages).
      The vocabulary is private by default: at most D words chosen by differentially private
      partition selection (epsilon 1, delta 1e-6, 20 words per document; charged in every
      private run's ledger); --vocabulary FILE takes a public list (one word a line, order
      kept); --vocab-from-counts keeps the D most frequent words, which is NOT private.
      Documents left with fewer than 3 vocabulary tokens stay counted in N, empty.
  dplda run --corpus DIR --topics K [--alpha0 A] [--truth FILE] [--decomposer fast|robust|simultaneous|online]
                 [--batch-size N] [--online-iterations R]
                 [--seed S] [--top-words N] [--json FILE]
                 [--config 1|2|3|4|whitened|input|none | --edges e5,e6] [--epsilon E] [--delta D]
                 [--mechanism analytic|classic|closed-form|laplace] [--bounds sound|printed]
                 [--split uniform|w1,w2,...] [--separate-releases] [--noise-seed S] [--max-length L] [--no-cache]
                 [--release-only] [--accountant basic|gdp]
                 [--e6 noise|decomposition|whitened] [--tpm-accountant gaussian|advanced|printed]
                 [--clip-m1 C1] [--clip-m2 C2] [--clip-m3 C3] [--clip-whitened C]
                 [--model spectral|vi|dp-vi] [--holdout F] [--holdout-seed S] [--write-split DIR [--force]]
                 [--score-model FILE] [--holdout-epsilon E] [--holdout-clip B] [--vi online|batch|poisson] [--vi-alpha symmetric|learned] [--iterations P] [--tau0 T] [--kappa K] [--clip C]
      --decomposer online: seed 004's online power method on the documents: R steps
      (--online-iterations R, default 30) of n documents each (--batch-size n) per topic; the second
      half of the steps is averaged, and the default n makes it read the corpus once per topic.
      --model vi: variational LDA; dp-vi: DP-VI (clip C, zCDP over all iterations; PRIVACY.md §10).
      --vi poisson: online VB on Poisson samples (each document with probability S/N per update,
      --batch-size S); for dp-vi the sample is secret and the noise is calibrated by the sampled
      Gaussian's PLD account (amplification; PRIVACY.md §16.5). --vi-alpha learned: alpha0 kept,
      its shape from the topics' token shares after every update (post-processing for dp-vi).
      --holdout F: fit on a seeded public split, report held-out perplexity (document completion):
      an exact statistic of the held-out documents, left out with --release-only (which also refuses
      --write-split and --score-model). --holdout-epsilon E releases a private evaluation instead:
      each held-out document's log-likelihood per token clipped to [-B, 0] (--holdout-clip B,
      default ln(d/1e-4): clips nothing), averaged, Laplace noise; its own ledger row (PRIVACY.md §15).
      Fits spectral LDA, privately when an edge set is given (noise from the kernel's secure
      generator unless --noise-seed asks for reproducible noise); prints a summary and the
      privacy ledger, and writes JSON. A private run also prints, apart and labelled, the
      exact (non-private) statistics of the corpus for teaching; --release-only leaves them
      out of the output and the JSON (do this for a real release). --e6 decomposition releases
      TD on edge e6 by seed 004's private tensor power method instead of noise on T.
      Edges leaving one node share one release (configuration 1: one M2 release for e2 and e5);
      --separate-releases releases each edge, as the papers did.
      --config whitened: the whitened release (PRIVACY.md §11): the clipped M2 released once for
      e2 and e5 (each document's M1 and M2 terms clipped to --clip-m1 0.5, --clip-m2 0.3), then
      M3(W~,W~,W~) of documents clipped in whitened space to C (default 2 sqrt(k + alpha0))
      released given the public W~; no Procedure 1. Use --accountant gdp with it.
      --clip-m1/--clip-m2/--clip-m3 with configurations 1-4: each document's M1, M2, M3 terms
      scaled down to these norms before the moments are formed (a bound not given is 1: nothing
      clipped); the sensitivities follow from the bounds (PRIVACY.md §12). Sound bounds, Gaussian.
      --mechanism laplace: pure epsilon-DP (delta = 0) for configuration 1 and input perturbation;
      on e3 it releases the explicit d x d x d M3 (d <= 300; PRIVACY.md §18), above that use a Gaussian.
      --save-model FILE writes the model file (docs/MODEL_FORMAT.md): vocabulary, topics, alpha, the
      privacy statement and ledger, the parameters; --score-model reads it (or a truth.json).
      Coherence (NPMI, UMass; top --coherence-top-words N words, default 10) is computed on the
      training documents - a non-private diagnostic, left out with --release-only - or on a public
      corpus with the model's vocabulary (--coherence-reference DIR): post-processing.
  dplda infer --model FILE (--corpus DIR | --input TEXT [--separator LINE] [--min-token-length M]
                 [--keep-stopwords] [--keep-case] [--numbers]) [--csv FILE] [--json FILE]
                 [--tolerance T] [--max-iterations M] [--perplexity [--perplexity-seed S]] [--release-only]
      Each document's topic proportions under a saved model (the variational E-step with its topics
      and alpha), as CSV and JSON. Text is tokenized against the model's vocabulary (other words are
      dropped and counted); a corpus must have the model's vocabulary. Documents outside the training
      set: post-processing of the release. The training documents (recognised by their folder or
      fingerprint) are NOT private, which every output says; --release-only refuses them.
      --perplexity scores the model on these documents (document completion).
  dplda sweep --preset figure2|figure2-vi|figure2-small-corpus|figure2-alpha|figure3|figure4|tpm-noise|online-tpm|dp-tpm|dp-tpm-lda|sound-utility|headline|error-vs-n --out DIR [--force]
                 [--corpus DIR (figure3, sound-utility, headline)] [--trials T] [--formats png,pdf,svg|none] [--figure-size column|two-column|WxH]
                 [--bounds sound|printed] [--threads N] [--seed S]
  dplda sweep --corpus DIR --topics K[,K2..] --out DIR [--force] [--truth FILE] [--alpha0 A[,A2..]]
                 [--configs none,1,2,3,4,vi,dp-vi|e5+e6,...] [--epsilons LO:HI:COUNT|E1,E2,..] [--delta D]
                 [--holdout FRACTION] [--coherence-top-words N] [--clip C] [--iterations T]
                 [--vi batch|poisson [--batch-size S]] [--vi-alpha symmetric|learned] [--trials T] [--mechanism M] [--bounds sound|printed] [--decomposer D] [--separate-releases] [--no-cache]
                 [--max-length L] [--formats ...] [--figure-size ...] [--threads N] [--seed S] [--release-only]
      Repeated private runs over a grid of epsilons (log-spaced) and configurations, with seeded
      noise and common random numbers; writes DIR/results.csv, summary.csv, timings.csv, the
      figures (DIR/figures, with their CSV data) and DIR/report.md. Progress goes to stderr.
      --figure-size lays the figures out for a journal: column (3.5 in wide), two-column (7 in)
      or WxH in inches; PNGs are then 300 dpi (default 7.5 x 5 in at 192 dpi).
      vi and dp-vi are the variational baselines (full-batch VB, T iterations; DP-VI clips each
      document's statistics to norm C); --vi poisson: online VB on Poisson samples of expected
      size S (default 1000), DP-VI accounted with amplification by subsampling. --holdout scores every model by held-out perplexity.
      --coherence-top-words N: every model's NPMI/UMass coherence on the training documents (a
      non-private diagnostic; a figure against epsilon), left out with --release-only.
      --release-only (also with a preset): the outputs hold released values only: no exact sigma_k,
      gamma_s, utility loss, held-out perplexity, timings or non-private configuration (none, vi).
      figure3 runs on --corpus DIR or builds the Debian package descriptions into out/corpora/debian;
      sound-utility and headline add --corpus DIR as a case judged on held-out perplexity.

Files: inputs must be regular files (a FIFO, device, socket or folder is refused). Outputs are
written atomically (a temporary file beside them, renamed when complete), never over an input
of the same command; an output folder's existing corpus or report is replaced only with --force.

Memory: before a stage allocates, its peak is estimated and a run that would not fit is refused,
saying what it needs and under which limit: the smallest of DPLDA_MEMORY_LIMIT (bytes, or with
K, M, G or T in powers of 1024, e.g. DPLDA_MEMORY_LIMIT=2G), the process's cgroup memory limit
(containers, CI), the address-space limit (ulimit -v) and the machine's memory.

Exit status: 0 success, 2 usage error, 3 bad input, 4 the computation failed.
)";
}

int generateCommand(const std::vector<std::string>& args) {
  const Arguments a(args, {"vocab", "topics", "docs", "alpha0", "prior", "beta", "doc-length", "seed", "out"},
                    {"fixed-length", "force"});
  GeneratorParams p;
  p.vocabSize = a.count("vocab", 1, kMaxVocabularySize);
  p.topicCount = a.integer("topics");
  p.docCount = a.integer("docs");
  p.alpha0 = a.number("alpha0", p.alpha0);
  const std::string prior = a.text("prior", "random");
  if (prior == "random") p.prior = GeneratorParams::Prior::Random;
  else if (prior == "symmetric") p.prior = GeneratorParams::Prior::Symmetric;
  else throw UsageError("--prior must be random or symmetric, got '" + prior + "'");
  p.beta = a.number("beta", p.beta);
  p.meanLength = a.number("doc-length", p.meanLength);
  p.fixedLength = a.flag("fixed-length");
  p.seed = a.seed("seed", p.seed);
  const std::string out = a.text("out");
  const OutputRules rules = outputRules(a, {});
  require(checkOutputFolder(out, {"docword.txt", "vocab.txt", "provenance.json", "truth.json"}, rules));  // before the work
  const SyntheticCorpus sc = take(generateLdaCorpus(p));
  require(writeUciCorpus(sc.corpus, out, rules));
  require(writeCorpusProvenance(sc.corpus.provenance, out, rules));
  require(writeTruthJson(sc.truth, (std::filesystem::path(out) / "truth.json").string(), rules));
  std::cout << "wrote " << sc.corpus.docCount() << " documents, vocabulary " << sc.corpus.vocabSize() << ", "
            << sc.corpus.nnz() << " non-zeros, " << p.topicCount << " topics (seed " << p.seed << ") to "
            << escapeText(out) << "\n";
  return kExitOk;
}

namespace {

// --format, --column/--id-column (CSV, TSV) and --field/--id-field (JSON Lines). Without --format
// the file name says (.csv, .tsv, .jsonl, before .gz), then --column means CSV and --field JSON Lines.
void readImportFormat(const Arguments& a, TextImportParams& p) {
  if ((a.has("column") || a.has("id-column")) && (a.has("field") || a.has("id-field")))
    throw UsageError("--column/--id-column name CSV or TSV columns, --field/--id-field JSON fields: give one kind");
  if (a.has("format")) {
    auto format = parseTextFormat(a.text("format"));
    if (!format.ok()) throw UsageError("--format: " + format.status().message());
    p.format = format.value();
  } else {
    p.format = textFormatFromName(p.input);
    if (p.format == TextFormat::Text && a.has("column")) p.format = TextFormat::Csv;
    if (p.format == TextFormat::Text && a.has("field")) p.format = TextFormat::JsonLines;
  }
  const bool json = p.format == TextFormat::JsonLines;
  const std::string key = json ? "field" : "column";
  const std::string textOption = "--" + key;
  if (a.has(json ? "column" : "field") || a.has(json ? "id-column" : "id-field"))
    throw UsageError(std::string("a ") + textFormatName(p.format) + " input takes " + textOption +
                     (json ? " and --id-field" : " and --id-column"));
  if (p.format == TextFormat::Text) return;
  if (!a.has(key))
    throw UsageError(std::string("a ") + textFormatName(p.format) + " input needs " + textOption +
                     " NAME: the " + (json ? "field" : "column") + " that holds each document's text");
  p.column = a.text(key);
  p.idColumn = a.text(json ? "id-field" : "id-column", "");
  if (a.has("separator")) throw UsageError("--separator applies to plain text, not to a " + std::string(textFormatName(p.format)) + " file");
}

}  // namespace

int importTextCommand(const std::vector<std::string>& args) {
  const Arguments a(args,
                    {"input", "vocab", "out", "min-token-length", "separator", "vocabulary", "vocab-epsilon",
                     "vocab-delta", "vocab-words-per-doc", "vocab-noise-seed", "format", "column", "id-column",
                     "field", "id-field"},
                    {"keep-stopwords", "keep-case", "numbers", "vocab-from-counts", "force"});
  TextImportParams p;
  p.input = a.text("input");
  if (a.has("vocabulary") && (a.flag("vocab-from-counts") || a.has("vocab-epsilon"))) {
    throw UsageError("--vocabulary gives a public vocabulary: --vocab-from-counts and --vocab-epsilon do not apply");
  }
  if (a.flag("vocab-from-counts") && (a.has("vocab-epsilon") || a.has("vocab-delta") || a.has("vocab-words-per-doc"))) {
    throw UsageError("--vocab-from-counts keeps the most frequent words (not private): the --vocab-epsilon, "
                     "--vocab-delta and --vocab-words-per-doc of the private selection do not apply");
  }
  p.vocabularyRule = a.has("vocabulary")          ? VocabularyRule::PublicFile
                     : a.flag("vocab-from-counts") ? VocabularyRule::CorpusCounts
                                                   : VocabularyRule::PrivateSelection;
  p.vocabularyFile = a.text("vocabulary", "");
  p.vocabSize = p.vocabularyRule == VocabularyRule::PublicFile ? kMaxVocabularySize
                                                               : a.count("vocab", 1, kMaxVocabularySize);
  p.selection.epsilon = a.number("vocab-epsilon", p.selection.epsilon);
  p.selection.delta = a.number("vocab-delta", p.selection.delta);
  p.selection.maxWordsPerDocument =
      a.count("vocab-words-per-doc", 1, kMaxWordsPerDocumentLimit, p.selection.maxWordsPerDocument);
  p.minTokenLength = a.integer("min-token-length", p.minTokenLength);
  p.separator = a.text("separator", "");
  p.removeStopWords = !a.flag("keep-stopwords");
  p.lowercase = !a.flag("keep-case");
  p.numbersAsTokens = a.flag("numbers");
  readImportFormat(a, p);
  const std::string out = a.text("out");
  std::vector<std::string> inputs{p.input};
  if (!p.vocabularyFile.empty()) inputs.push_back(p.vocabularyFile);
  const OutputRules rules = outputRules(a, inputs);
  require(checkOutputFolder(out, {"docword.txt", "vocab.txt", "provenance.json", kDocumentIdsFileName}, rules));
  std::unique_ptr<RandomSource> noise;
  if (a.has("vocab-noise-seed")) noise = std::make_unique<SeededRandom>(a.seed("vocab-noise-seed", 0));
  TextImportReport report;
  const Corpus corpus = take(importText(p, &report, nullptr, noise.get()));
  require(writeUciCorpus(corpus, out, rules));
  require(writeCorpusProvenance(corpus.provenance, out, rules));
  require(writeDocumentIds(report.documentIds, out, rules));
  std::cout << "read " << report.documentsRead << " documents"
            << (report.compressedFiles > 0 && report.filesRead == 0 ? " (gzip)" : "") << "; ";
  if (corpus.provenance.shortDocumentsKept) {
    std::cout << "all " << corpus.docCount() << " count in N (" << report.emptyDocuments
              << " left with fewer than 3 vocabulary tokens are kept empty)";
  } else {
    std::cout << "kept " << report.documentsKept << " (dropped " << report.droppedDocuments
              << " with fewer than 3 vocabulary tokens)";
  }
  std::cout << "; vocabulary " << corpus.vocabSize() << " of " << report.distinctWords << " distinct words; wrote "
            << escapeText(out) << " (document ids in " << kDocumentIdsFileName << ")\n";
  const CorpusProvenance& prov = corpus.provenance;
  switch (prov.vocabulary) {
    case VocabularyOrigin::Public:
      std::cout << "vocabulary: the public list " << escapeText(prov.vocabularyFile) << ", in its order\n";
      break;
    case VocabularyOrigin::PrivateSelection:
      std::cout << "vocabulary: private partition selection (epsilon " << prov.selection.epsilon << ", delta "
                << prov.selection.delta << ", at most " << prov.selection.maxWordsPerDocument
                << " words per document, noise sigma " << prov.selection.sigma << ", threshold "
                << prov.selection.threshold << " documents, noise " << prov.selection.noiseSource
                << "), words in byte order; every private run on this corpus charges it\n";
      break;
    default:
      std::cout << "vocabulary: the most frequent words of this text - NOT private: runs on this corpus are not "
                   "differentially private (use --vocabulary FILE or the private selection)\n";
  }
  if (report.filesRead > 0) {
    std::cout << "folder: " << report.filesRead << " text files read";
    if (report.compressedFiles) std::cout << " (" << report.compressedFiles << " gzip)";
    if (report.duplicateFiles) std::cout << ", " << report.duplicateFiles << " links to files already read skipped";
    if (!report.skippedFiles.empty()) {
      std::cout << ", " << report.skippedFiles.size() << " files that are not UTF-8 text skipped (";
      for (std::size_t i = 0; i < std::min<std::size_t>(report.skippedFiles.size(), 5); ++i)
        std::cout << (i ? ", " : "") << escapeText(report.skippedFiles[i]);
      std::cout << (report.skippedFiles.size() > 5 ? ", ...)" : ")");
    }
    std::cout << "\n";
  }
  return kExitOk;
}

}  // namespace dplda::cli
