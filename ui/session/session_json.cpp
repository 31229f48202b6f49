// Sessions as JSON files: writing, and reading with every field checked (a session file is
// user input: hostile values are refused naming the field, never trusted).
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>
#include <cmath>
#include <limits>

#include "core/common/safe_file.h"
#include "core/common/text_escape.h"
#include "core/experiments/sweep.h"
#include "core/moments/clipped_moments.h"
#include "core/privacy/budget.h"
#include "ui/session/session.h"
#include "ui/session/session_privacy.h"
#include "ui/session/session_text.h"

namespace dplda {

namespace {

constexpr int kSessionVersion = 1;
// A session is a few kilobytes (pinned sweeps add a few hundred numbers each); anything far
// larger is not a session, and Qt's JSON parser holds the whole document in memory.
constexpr qint64 kMaxSessionBytes = 16 << 20;
constexpr int kMaxPinned = 1000;       // pinned runs (the history keeps 200)
constexpr int kMaxPinnedSweeps = 100;  // pinned sweeps
constexpr int kMaxCurveStyle = 255;    // a palette index (colours, dashes and markers wrap)
// Text is laid out by widgets, whose line breaking is quadratic in the length of a word: a
// 200 000-character lesson took the app 20 s to show. A lesson is a few kilobytes, every other
// string a path, a name or a label.
constexpr int kMaxTextLength = 4096;
constexpr int kMaxLessonTextLength = 65536;

QString num(double v) { return QString::number(v, 'g', 10); }

QString shownPath(const QString& path) { return QString::fromStdString(escapeText(path.toStdString())); }

// Every refusal goes through here: escapeControls is the net for a core parser's message that
// quotes the session's text as it is.
Status bad(const QString& msg) { return badInput(escapeControls(msg.toStdString())); }

// Reads an optional number; keeps `out` when the key is absent.
Status readNumber(const QJsonObject& o, const char* key, const QString& where, double& out) {
  if (!o.contains(key)) return Status::ok();
  const QJsonValue v = o.value(key);
  if (!v.isDouble())
    return bad(QString("session: %1.%2 must be a number, got %3")
                   .arg(where, QString(key),
                        QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact))));
  out = v.toDouble();
  return Status::ok();
}

Status readInt(const QJsonObject& o, const char* key, const QString& where, int& out) {
  double x = out;
  DPLDA_RETURN_IF_ERROR(readNumber(o, key, where, x));
  if (x != std::floor(x) || std::abs(x) > 2e9) {
    return bad(QString("session: %1.%2 must be a whole number, got %3").arg(where, QString(key), num(x)));
  }
  out = static_cast<int>(x);
  return Status::ok();
}

// A whole number in lo..hi; keeps `out` when the key is absent.
Status readIntIn(const QJsonObject& o, const char* key, const QString& where, int lo, int hi, int& out) {
  if (!o.contains(key)) return Status::ok();
  int x = out;
  DPLDA_RETURN_IF_ERROR(readInt(o, key, where, x));
  if (x < lo || x > hi) {
    return bad(
        QString("session: %1.%2 must be in %3..%4, got %5").arg(where, QString(key)).arg(lo).arg(hi).arg(x));
  }
  out = x;
  return Status::ok();
}

// An optional number in [lo, hi] (or (lo, hi] when loOpen); keeps `out` when the key is absent.
Status readNumberIn(const QJsonObject& o, const char* key, const QString& where, double lo, double hi,
                    bool loOpen, double& out) {
  if (!o.contains(key)) return Status::ok();
  double x = out;
  DPLDA_RETURN_IF_ERROR(readNumber(o, key, where, x));
  if (!((loOpen ? x > lo : x >= lo) && x <= hi)) {
    return bad(QString("session: %1.%2 must be in %3%4, %5], got %6")
                   .arg(where, QString(key), loOpen ? "(" : "[", num(lo), num(hi), num(x)));
  }
  out = x;
  return Status::ok();
}

// Pinned sweeps are drawn as they are: {"label", "figures": {KEY: [{"config", "style", "eps",
// "median"}]}} with positive ε, one median (a number or null) per ε and a palette style.
Status checkPinnedSweeps(const QJsonArray& pins) {
  if (pins.size() > kMaxPinnedSweeps)
    return bad(QString("session: pinned_sweeps holds %1 sweeps, more than %2")
                   .arg(pins.size())
                   .arg(kMaxPinnedSweeps));
  for (int i = 0; i < pins.size(); ++i) {
    const QString at = QString("session: pinned_sweeps[%1]").arg(i);
    if (!pins[i].isObject()) return bad(at + " must be an object");
    const QJsonObject pin = pins[i].toObject();
    if (pin.contains("label") && !pin.value("label").isString()) return bad(at + ".label must be a string");
    if (!pin.contains("figures")) continue;
    if (!pin.value("figures").isObject()) return bad(at + ".figures must be an object");
    const QJsonObject figures = pin.value("figures").toObject();
    for (auto f = figures.begin(); f != figures.end(); ++f) {
      const QString fat = at + ".figures." + shownPath(f.key());
      if (!f.value().isArray()) return bad(fat + " must be an array of curves");
      const QJsonArray curves = f.value().toArray();
      for (int j = 0; j < curves.size(); ++j) {
        const QString cat = fat + QString("[%1]").arg(j);
        if (!curves[j].isObject()) return bad(cat + " must be an object");
        const QJsonObject c = curves[j].toObject();
        if (c.contains("config") && !c.value("config").isString())
          return bad(cat + ".config must be a string");
        if (c.contains("style")) {
          const double st = c.value("style").toDouble(-1);
          if (!c.value("style").isDouble() || st != std::floor(st) || st < 0 || st > kMaxCurveStyle)
            return bad(cat + QString(".style must be a whole number in 0..%1").arg(kMaxCurveStyle));
        }
        const QJsonArray eps = c.value("eps").toArray(), median = c.value("median").toArray();
        if (!c.value("eps").isArray() || !c.value("median").isArray() || eps.size() != median.size())
          return bad(cat + " needs arrays eps and median of equal length");
        for (int e = 0; e < eps.size(); ++e) {
          if (!eps[e].isDouble() || !(eps[e].toDouble() > 0))
            return bad(cat + QString(".eps[%1] must be a number > 0").arg(e));
          if (!median[e].isDouble() && !median[e].isNull())
            return bad(cat + QString(".median[%1] must be a number or null").arg(e));
        }
      }
    }
  }
  return Status::ok();
}

Status readBool(const QJsonObject& o, const char* key, const QString& where, bool& out) {
  if (!o.contains(key)) return Status::ok();
  if (!o.value(key).isBool())
    return bad(QString("session: %1.%2 must be true or false").arg(where, QString(key)));
  out = o.value(key).toBool();
  return Status::ok();
}

Status readString(const QJsonObject& o, const char* key, const QString& where, QString& out,
                  int maxLength = kMaxTextLength) {
  if (!o.contains(key)) return Status::ok();
  if (!o.value(key).isString())
    return bad(QString("session: %1.%2 must be a string").arg(where, QString(key)));
  const QString text = o.value(key).toString();
  if (text.size() > maxLength) {
    return bad(QString("session: %1.%2 has %3 characters, more than %4")
                   .arg(where, QString(key))
                   .arg(text.size())
                   .arg(maxLength));
  }
  out = text;
  return Status::ok();
}

// Every string inside a pinned run or sweep (labels, names) is at most kMaxTextLength long.
Status checkStrings(const QJsonValue& v, const QString& where) {
  if (v.isString() && v.toString().size() > kMaxTextLength)
    return bad(QString("session: %1 has a string of %2 characters, more than %3")
                   .arg(where)
                   .arg(v.toString().size())
                   .arg(kMaxTextLength));
  if (v.isArray()) {
    const QJsonArray a = v.toArray();
    for (int i = 0; i < a.size(); ++i)
      DPLDA_RETURN_IF_ERROR(checkStrings(a[i], QString("%1[%2]").arg(where).arg(i)));
  }
  if (v.isObject()) {
    const QJsonObject o = v.toObject();
    for (auto it = o.begin(); it != o.end(); ++it) {
      if (it.key().size() > kMaxTextLength)
        return bad(QString("session: %1 has a key of %2 characters").arg(where).arg(it.key().size()));
      DPLDA_RETURN_IF_ERROR(checkStrings(it.value(), where + "." + shownPath(it.key().left(40))));
    }
  }
  return Status::ok();
}

// corpus.released_selection (SessionState::releasedSelection): the import's options, ε > 0, δ in
// [0, 1), words per document >= 1, and at most kMaxVocabularySize words of at most kMaxTextLength
// characters (duplicates and words missing from the text are the import's to refuse).
Status readReleasedSelection(const QJsonObject& corpus, QJsonObject& out) {
  if (!corpus.contains("released_selection")) return Status::ok();
  const QString where = "corpus.released_selection";
  if (!corpus.value("released_selection").isObject()) return bad("session: " + where + " must be an object");
  const QJsonObject o = corpus.value("released_selection").toObject();
  QString options, import, input;
  double epsilon = 0.0, delta = 0.0;
  int perDocument = 0;
  DPLDA_RETURN_IF_ERROR(readString(o, "options", where, options, 3 * kMaxTextLength));
  DPLDA_RETURN_IF_ERROR(readString(o, "import", where, import, 4 * kMaxTextLength));
  DPLDA_RETURN_IF_ERROR(readString(o, "input", where, input));
  DPLDA_RETURN_IF_ERROR(readNumberIn(o, "epsilon", where, 0.0, kMaxEpsilon, true, epsilon));
  DPLDA_RETURN_IF_ERROR(readNumberIn(o, "delta", where, 0.0, 1.0, false, delta));
  DPLDA_RETURN_IF_ERROR(readIntIn(o, "words_per_document", where, 1, std::numeric_limits<int>::max(), perDocument));
  const QJsonValue words = o.value("words");
  if (options.isEmpty() || !(epsilon > 0.0) || delta >= 1.0 || perDocument < 1 || !words.isArray() ||
      words.toArray().isEmpty() || words.toArray().size() > kMaxVocabularySize)
    return bad("session: " + where + " needs options, epsilon > 0, delta < 1, words_per_document >= 1 and 1.." +
               QString::number(kMaxVocabularySize) + " words");
  for (const QJsonValue& w : words.toArray())
    if (!w.isString() || w.toString().isEmpty() || w.toString().size() > kMaxTextLength)
      return bad("session: " + where + ".words must hold words of 1.." + QString::number(kMaxTextLength) + " characters");
  out = o;
  return Status::ok();
}

Status readSeed(const QJsonObject& o, const char* key, const QString& where, std::uint64_t& out) {
  if (!o.contains(key)) return Status::ok();
  const QJsonValue v = o.value(key);
  QString text = v.isString() ? v.toString() : v.isDouble() ? num(v.toDouble()) : QString("?");
  auto r = parseSeed(text, where + "." + key);
  if (!r.ok()) return bad(QString::fromStdString(r.status().message()));
  out = r.value();
  return Status::ok();
}

}  // namespace

QJsonObject sessionToJson(const SessionState& s) {
  const GeneratorParams& g = s.generator;
  QJsonArray edges;
  for (int e = 0; e < kEdgeCount; ++e)
    if (contains(s.edges, e)) edges.append(QString("e%1").arg(e));
  QJsonObject lesson;
  if (!s.lessonTitle.isEmpty() || !s.lessonText.isEmpty())
    lesson = {{"title", s.lessonTitle}, {"text", s.lessonText}};
  QJsonObject json{
      {"format", "dplda-explorer session"},
      {"version", kSessionVersion},
      {"corpus", QJsonObject{{"source", s.source == SessionState::Source::Uci    ? "uci"
                                        : s.source == SessionState::Source::Text ? "text"
                                                                                 : "synthetic"},
                             {"path", s.corpusPath},
                             {"separator", s.separator},
                             {"format", textFormatName(s.textFormat)},
                             {"column", s.textColumn},
                             {"vocabulary_file", s.vocabularyFile}}},
      {"generator", QJsonObject{{"vocab", g.vocabSize},
                                {"topics", g.topicCount},
                                {"docs", g.docCount},
                                {"alpha0", g.alpha0},
                                {"prior", g.prior == GeneratorParams::Prior::Random ? "random" : "symmetric"},
                                {"beta", g.beta},
                                {"doc_length", g.meanLength},
                                {"fixed_length", g.fixedLength},
                                {"seed", seedToText(g.seed)}}},
      {"model", QJsonObject{{"decomposer", s.decomposer},
                            {"init_seed", seedToText(s.initSeed)},
                            {"kind", modelName(s.model)},
                            {"vi", QJsonObject{{"method", viMethodName(s.vi.method)},
                                               {"iterations", s.vi.iterations},
                                               {"batch_size", s.vi.batchSize},
                                               {"tau0", s.vi.tau0},
                                               {"kappa", s.vi.kappa},
                                               {"clip", s.vi.clip},
                                               {"alpha", s.vi.learnAlpha ? "learned" : "symmetric"}}}}},
      {"evaluation", QJsonObject{{"holdout", s.holdout}, {"holdout_seed", seedToText(s.holdoutSeed)}}},
      {"privacy",
       QJsonObject{{"edges", edges},
                   {"epsilon", s.epsilon},
                   {"delta", s.delta},
                   {"mechanism", mechanismName(s.mechanism)},
                   {"bounds", boundSetName(s.bounds)},
                   {"share_releases", s.shareReleases},
                   {"split", splitToText(s.splitWeights)},
                   {"noise_seed", s.noiseSeed ? QJsonValue(seedToText(*s.noiseSeed)) : QJsonValue()},
                   {"max_length", s.maxLength}}},
      {"sweep", QJsonObject{{"trials", s.trials},
                            {"epsilons", s.sweepEpsilons},
                            {"compare_presets", s.comparePresets},
                            {"compare_sound", s.compareSound}}},
      {"pinned", s.pinned},
      {"pinned_sweeps", s.pinnedSweeps},
  };
  if (!s.releasedSelection.isEmpty()) {
    QJsonObject corpus = json.value("corpus").toObject();
    corpus.insert("released_selection", s.releasedSelection);
    json.insert("corpus", corpus);
  }
  QJsonObject privacy = json.value("privacy").toObject();
  writePrivacyOptionsJson(s, privacy);
  json.insert("privacy", privacy);
  if (!lesson.isEmpty()) json.insert("lesson", lesson);
  return json;
}

Result<SessionState> sessionFromJson(const QJsonObject& json) {
  SessionState s;
  if (json.contains("version") && json.value("version").toInt(-1) != kSessionVersion) {
    return bad(QString("session: unsupported version %1 (this build reads version %2)")
                   .arg(quoted(json.value("version").toVariant().toString()))
                   .arg(kSessionVersion));
  }
  auto section = [&](const char* key, QJsonObject& out) -> Status {
    if (!json.contains(key)) return Status::ok();
    if (!json.value(key).isObject()) return bad(QString("session: '%1' must be an object").arg(key));
    out = json.value(key).toObject();
    return Status::ok();
  };
  QJsonObject corpus, gen, model, priv, sweep, lesson, evaluation, vi;
  DPLDA_RETURN_IF_ERROR(section("corpus", corpus));
  DPLDA_RETURN_IF_ERROR(section("generator", gen));
  DPLDA_RETURN_IF_ERROR(section("model", model));
  DPLDA_RETURN_IF_ERROR(section("privacy", priv));
  DPLDA_RETURN_IF_ERROR(section("sweep", sweep));
  DPLDA_RETURN_IF_ERROR(section("lesson", lesson));
  DPLDA_RETURN_IF_ERROR(section("evaluation", evaluation));

  QString source = "synthetic";
  DPLDA_RETURN_IF_ERROR(readString(corpus, "source", "corpus", source));
  if (source == "uci")
    s.source = SessionState::Source::Uci;
  else if (source == "text")
    s.source = SessionState::Source::Text;
  else if (source != "synthetic")
    return bad("session: corpus.source must be synthetic, uci or text, got " + quoted(source));
  DPLDA_RETURN_IF_ERROR(readString(corpus, "path", "corpus", s.corpusPath));
  DPLDA_RETURN_IF_ERROR(readString(corpus, "separator", "corpus", s.separator));
  QString format = "text";  // files before issue 26 read plain text
  DPLDA_RETURN_IF_ERROR(readString(corpus, "format", "corpus", format));
  const auto textFormat = parseTextFormat(format.toStdString());
  if (!textFormat.ok())
    return bad("session: corpus.format must be text, csv, tsv or jsonl, got " + quoted(format));
  s.textFormat = textFormat.value();
  DPLDA_RETURN_IF_ERROR(readString(corpus, "column", "corpus", s.textColumn));
  DPLDA_RETURN_IF_ERROR(readString(corpus, "vocabulary_file", "corpus", s.vocabularyFile));
  DPLDA_RETURN_IF_ERROR(readReleasedSelection(corpus, s.releasedSelection));

  GeneratorParams& g = s.generator;
  // The ranges every part of the tool accepts (core/corpus/corpus.h, core/privacy/mechanisms.h);
  // what depends on other fields (k <= d, resource limits) is validateSession's.
  DPLDA_RETURN_IF_ERROR(readIntIn(gen, "vocab", "generator", 1, kMaxVocabularySize, g.vocabSize));
  DPLDA_RETURN_IF_ERROR(readIntIn(gen, "topics", "generator", 1, kMaxVocabularySize, g.topicCount));
  DPLDA_RETURN_IF_ERROR(readIntIn(gen, "docs", "generator", 1, std::numeric_limits<int>::max(), g.docCount));
  DPLDA_RETURN_IF_ERROR(readNumberIn(gen, "alpha0", "generator", 0.0, kMaxAlpha0, true, g.alpha0));
  QString prior = "random";
  DPLDA_RETURN_IF_ERROR(readString(gen, "prior", "generator", prior));
  if (prior == "symmetric")
    g.prior = GeneratorParams::Prior::Symmetric;
  else if (prior != "random")
    return bad("session: generator.prior must be random or symmetric, got " + quoted(prior));
  DPLDA_RETURN_IF_ERROR(readNumberIn(gen, "beta", "generator", 0.0, kMaxBeta, true, g.beta));
  DPLDA_RETURN_IF_ERROR(readNumberIn(gen, "doc_length", "generator", 0.0, 1e9, true, g.meanLength));
  DPLDA_RETURN_IF_ERROR(readBool(gen, "fixed_length", "generator", g.fixedLength));
  DPLDA_RETURN_IF_ERROR(readSeed(gen, "seed", "generator", g.seed));

  DPLDA_RETURN_IF_ERROR(readString(model, "decomposer", "model", s.decomposer));
  DPLDA_RETURN_IF_ERROR(readSeed(model, "init_seed", "model", s.initSeed));
  // The model choice (issue 10); files written before it have none: the spectral model.
  if (model.contains("kind")) {
    QString kind;
    DPLDA_RETURN_IF_ERROR(readString(model, "kind", "model", kind));
    if (kind == "vi")
      s.model = SessionState::Model::Vi;
    else if (kind == "dp-vi")
      s.model = SessionState::Model::DpVi;
    else if (kind != "spectral")
      return bad("session: model.kind must be spectral, vi or dp-vi, got " + quoted(kind));
  }
  if (model.contains("vi")) {
    if (!model.value("vi").isObject()) return bad("session: model.vi must be an object");
    vi = model.value("vi").toObject();
  }
  if (vi.contains("method")) {
    QString method;
    DPLDA_RETURN_IF_ERROR(readString(vi, "method", "model.vi", method));
    auto m = parseViMethod(method.toStdString());
    if (!m.ok())
      return bad("session: model.vi.method must be batch, online or poisson, got " + quoted(method));
    s.vi.method = m.value();
  }
  DPLDA_RETURN_IF_ERROR(readIntIn(vi, "iterations", "model.vi", 1, kMaxViIterations, s.vi.iterations));
  DPLDA_RETURN_IF_ERROR(readIntIn(vi, "batch_size", "model.vi", 1, kMaxViBatchSize, s.vi.batchSize));
  DPLDA_RETURN_IF_ERROR(readNumberIn(vi, "tau0", "model.vi", 1.0, kMaxViTau0, false, s.vi.tau0));
  DPLDA_RETURN_IF_ERROR(readNumberIn(vi, "kappa", "model.vi", 0.5, 1.0, true, s.vi.kappa));
  DPLDA_RETURN_IF_ERROR(readNumberIn(vi, "clip", "model.vi", 0.0, kMaxViClip, true, s.vi.clip));
  if (vi.contains("alpha")) {  // as --vi-alpha; absent in older files: symmetric
    QString shape;
    DPLDA_RETURN_IF_ERROR(readString(vi, "alpha", "model.vi", shape));
    if (shape != "symmetric" && shape != "learned") {
      return bad("session: model.vi.alpha must be symmetric or learned, got " + quoted(shape));
    }
    s.vi.learnAlpha = shape == "learned";
  }
  // Held-out evaluation; absent in older files and the lessons, which fit on the whole corpus.
  s.holdout = 0.0;
  DPLDA_RETURN_IF_ERROR(readNumberIn(evaluation, "holdout", "evaluation", 0.0, 1.0, false, s.holdout));
  if (s.holdout >= 1.0)
    return bad(QString("session: evaluation.holdout must be in [0, 1), got %1").arg(num(s.holdout)));
  DPLDA_RETURN_IF_ERROR(readSeed(evaluation, "holdout_seed", "evaluation", s.holdoutSeed));

  if (priv.contains("edges")) {
    const QJsonValue v = priv.value("edges");
    EdgeSet set = 0;
    if (v.isString()) {  // a preset name: "2", "config 2", "input", "none"
      QString name = v.toString().trimmed();
      if (name.startsWith("config")) name = name.mid(6).trimmed();
      auto p = parsePreset(name.toStdString());
      if (!p.ok()) return bad("session: privacy.edges: " + QString::fromStdString(p.status().message()));
      set = presetEdges(p.value());
    } else if (v.isArray()) {
      QStringList names;
      for (const QJsonValue& x : v.toArray()) {
        if (!x.isString()) return bad("session: privacy.edges must list edge names such as \"e5\"");
        names << x.toString();
      }
      if (!names.isEmpty()) {
        auto r = parseEdgeSet(names.join(',').toStdString());
        if (!r.ok()) return bad("session: privacy.edges: " + QString::fromStdString(r.status().message()));
        set = r.value();
      }
    } else {
      return bad("session: privacy.edges must be an array of edge names or a preset name");
    }
    s.edges = set;
  }
  DPLDA_RETURN_IF_ERROR(readNumberIn(priv, "epsilon", "privacy", 0.0, kMaxEpsilon, true, s.epsilon));
  DPLDA_RETURN_IF_ERROR(readNumber(priv, "delta", "privacy", s.delta));
  if (!(s.delta > 0.0 && s.delta < 1.0))
    return bad(QString("session: privacy.delta must be in (0, 1), got %1").arg(num(s.delta)));
  QString text;
  if (priv.contains("mechanism")) {
    DPLDA_RETURN_IF_ERROR(readString(priv, "mechanism", "privacy", text));
    auto m = parseMechanism(text.toStdString());
    if (!m.ok()) return bad("session: privacy.mechanism: " + QString::fromStdString(m.status().message()));
    s.mechanism = m.value();
  }
  if (priv.contains("bounds")) {
    DPLDA_RETURN_IF_ERROR(readString(priv, "bounds", "privacy", text));
    auto b = parseBoundSet(text.toStdString());
    if (!b.ok()) return bad("session: privacy.bounds: " + QString::fromStdString(b.status().message()));
    s.bounds = b.value();
  }
  DPLDA_RETURN_IF_ERROR(readBool(priv, "share_releases", "privacy", s.shareReleases));
  if (priv.contains("split")) {
    QString splitText;
    DPLDA_RETURN_IF_ERROR(readString(priv, "split", "privacy", splitText));
    auto w = parseSplitText(splitText);
    if (!w.ok()) return bad("session: privacy." + QString::fromStdString(w.status().message()));
    s.splitWeights = w.value();
  }
  if (priv.contains("noise_seed") && !priv.value("noise_seed").isNull() &&
      !(priv.value("noise_seed").isString() && priv.value("noise_seed").toString().isEmpty())) {
    std::uint64_t seed = 0;
    DPLDA_RETURN_IF_ERROR(readSeed(priv, "noise_seed", "privacy", seed));
    s.noiseSeed = seed;
  }
  DPLDA_RETURN_IF_ERROR(readNumberIn(priv, "max_length", "privacy", 3.0, kMaxClipLength, false, s.maxLength));
  DPLDA_RETURN_IF_ERROR(readPrivacyOptionsJson(priv, s));
  DPLDA_RETURN_IF_ERROR(readIntIn(sweep, "trials", "sweep", 1, 50, s.trials));
  DPLDA_RETURN_IF_ERROR(readString(sweep, "epsilons", "sweep", s.sweepEpsilons));
  DPLDA_RETURN_IF_ERROR(readBool(sweep, "compare_presets", "sweep", s.comparePresets));
  DPLDA_RETURN_IF_ERROR(readBool(sweep, "compare_sound", "sweep", s.compareSound));
  if (json.contains("pinned")) {
    if (!json.value("pinned").isArray()) return bad("session: 'pinned' must be an array");
    s.pinned = json.value("pinned").toArray();
    if (s.pinned.size() > kMaxPinned)
      return bad(
          QString("session: 'pinned' holds %1 runs, more than %2").arg(s.pinned.size()).arg(kMaxPinned));
    for (int i = 0; i < s.pinned.size(); ++i)
      if (!s.pinned[i].isObject()) return bad(QString("session: pinned[%1] must be an object").arg(i));
    DPLDA_RETURN_IF_ERROR(checkStrings(s.pinned, "pinned"));
  }
  if (json.contains("pinned_sweeps")) {
    if (!json.value("pinned_sweeps").isArray()) return bad("session: 'pinned_sweeps' must be an array");
    s.pinnedSweeps = json.value("pinned_sweeps").toArray();
    DPLDA_RETURN_IF_ERROR(checkPinnedSweeps(s.pinnedSweeps));
    DPLDA_RETURN_IF_ERROR(checkStrings(s.pinnedSweeps, "pinned_sweeps"));
  }
  DPLDA_RETURN_IF_ERROR(readString(lesson, "title", "lesson", s.lessonTitle));
  DPLDA_RETURN_IF_ERROR(readString(lesson, "text", "lesson", s.lessonText, kMaxLessonTextLength));
  return s;
}

Status saveSession(const SessionState& s, const QString& path) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly)) {
    return ioError(
        QString("cannot write session '%1': %2").arg(shownPath(path), f.errorString()).toStdString());
  }
  f.write(QJsonDocument(sessionToJson(s)).toJson(QJsonDocument::Indented));
  if (!f.commit())
    return ioError(
        QString("cannot write session '%1': %2").arg(shownPath(path), f.errorString()).toStdString());
  return Status::ok();
}

Result<SessionState> loadSession(const QString& path) {
  const QString shown = shownPath(path);
  if (QFileInfo(path).isDir())
    return ioError(QString("session '%1' is a folder, not a file").arg(shown).toStdString());
  // A FIFO would block the open until a writer came, a device never ends (issue 28). Lessons are
  // sessions compiled into the program (":/lessons/..."): Qt resources, not files of the system.
  const bool resource = path.startsWith(QLatin1String(":/")) || path.startsWith(QLatin1String("qrc:"));
  if (const Status regular = resource ? Status::ok() : requireRegularFile(path.toStdString());
      !regular.isOk())
    return ioError("cannot open session: " + regular.message());
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    return ioError(QString("cannot open session '%1': %2").arg(shown, f.errorString()).toStdString());
  }
  // Read at most one byte past the limit: the file may grow while it is read.
  const QByteArray bytes = f.read(kMaxSessionBytes + 1);
  if (bytes.size() > kMaxSessionBytes) {
    return Status(StatusCode::ResourceLimit,
                  QString("session '%1' is larger than %2 MiB; a session is a few kilobytes")
                      .arg(shown)
                      .arg(kMaxSessionBytes >> 20)
                      .toStdString());
  }
  QJsonParseError err;
  const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
  if (err.error != QJsonParseError::NoError) {
    return bad(QString("session '%1' is not valid JSON at offset %2: %3")
                   .arg(shown)
                   .arg(err.offset)
                   .arg(err.errorString()));
  }
  if (!doc.isObject()) return bad(QString("session '%1' must hold a JSON object").arg(shown));
  auto r = sessionFromJson(doc.object());
  if (!r.ok())
    return Status(
        r.status().code(),
        QString("%1 ('%2')").arg(QString::fromStdString(r.status().message()), shown).toStdString());
  return r;
}

}  // namespace dplda
