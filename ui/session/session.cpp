#include "ui/session/session.h"

#include <QFile>
#include <QJsonDocument>
#include <QSaveFile>
#include <cmath>

#include "core/experiments/sweep.h"
#include "core/privacy/budget.h"

namespace dplda {

namespace {

constexpr int kSessionVersion = 1;

QString num(double v) { return QString::number(v, 'g', 10); }

Status bad(const QString& msg) { return badInput(msg.toStdString()); }

// Reads an optional number; keeps `out` when the key is absent.
Status readNumber(const QJsonObject& o, const char* key, const QString& where, double& out) {
  if (!o.contains(key)) return Status::ok();
  const QJsonValue v = o.value(key);
  if (!v.isDouble()) return bad(QString("session: %1.%2 must be a number, got %3").arg(where, QString(key), QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact))));
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

Status readBool(const QJsonObject& o, const char* key, const QString& where, bool& out) {
  if (!o.contains(key)) return Status::ok();
  if (!o.value(key).isBool()) return bad(QString("session: %1.%2 must be true or false").arg(where, QString(key)));
  out = o.value(key).toBool();
  return Status::ok();
}

Status readString(const QJsonObject& o, const char* key, const QString& where, QString& out) {
  if (!o.contains(key)) return Status::ok();
  if (!o.value(key).isString()) return bad(QString("session: %1.%2 must be a string").arg(where, QString(key)));
  out = o.value(key).toString();
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

bool operator==(const SessionState& a, const SessionState& b) {
  const GeneratorParams& g = a.generator;
  const GeneratorParams& h = b.generator;
  return a.source == b.source && a.corpusPath == b.corpusPath && a.separator == b.separator &&
         a.splitWeights == b.splitWeights && g.vocabSize == h.vocabSize &&
         g.topicCount == h.topicCount && g.docCount == h.docCount && g.alpha0 == h.alpha0 && g.prior == h.prior &&
         g.beta == h.beta && g.meanLength == h.meanLength && g.fixedLength == h.fixedLength && g.seed == h.seed &&
         a.decomposer == b.decomposer && a.initSeed == b.initSeed && a.edges == b.edges && a.epsilon == b.epsilon &&
         a.delta == b.delta && a.mechanism == b.mechanism && a.bounds == b.bounds &&
         a.shareReleases == b.shareReleases && a.noiseSeed == b.noiseSeed && a.maxLength == b.maxLength &&
         a.trials == b.trials && a.sweepEpsilons == b.sweepEpsilons && a.comparePresets == b.comparePresets && a.pinned == b.pinned &&
         a.pinnedSweeps == b.pinnedSweeps &&
         a.lessonTitle == b.lessonTitle && a.lessonText == b.lessonText;
}

QMap<QString, QString> validateSession(const SessionState& s) {
  QMap<QString, QString> e;
  const GeneratorParams& g = s.generator;
  if (s.source == SessionState::Source::Synthetic) {
    if (g.vocabSize < 1) e["vocab"] = QString("vocabulary size d must be >= 1, got %1").arg(g.vocabSize);
    if (g.docCount < 3) e["docs"] = QString("number of documents N must be >= 3, got %1").arg(g.docCount);
    if (!std::isfinite(g.beta) || g.beta <= 0)
      e["beta"] = QString("topic concentration β must be > 0, got %1").arg(num(g.beta));
    if (!std::isfinite(g.meanLength) || g.meanLength < 3)
      e["length"] = QString("document length must be >= 3, got %1").arg(num(g.meanLength));
    else if (g.fixedLength && g.meanLength != std::floor(g.meanLength))
      e["length"] = QString("a fixed document length must be a whole number, got %1").arg(num(g.meanLength));
    if (g.topicCount > g.vocabSize)
      e["topics"] = QString("k = %1 topics exceeds the vocabulary size d = %2 (k ≤ d)").arg(g.topicCount).arg(g.vocabSize);
  } else if (s.source == SessionState::Source::Text) {
    // The import keeps the d most frequent words, so d matters for text corpora too.
    if (s.corpusPath.trimmed().isEmpty())
      e["corpus"] = "choose a plain-text file (one document per line) or a folder (one document per file)";
    if (g.vocabSize < 1) e["vocab"] = QString("vocabulary size d must be >= 1, got %1").arg(g.vocabSize);
    else if (g.topicCount > g.vocabSize)
      e["topics"] = QString("k = %1 topics exceeds the vocabulary size d = %2 (k ≤ d)").arg(g.topicCount).arg(g.vocabSize);
  } else if (s.corpusPath.trimmed().isEmpty()) {
    e["corpus"] = "choose a UCI corpus folder (docword.txt, vocab.txt, truth.json)";
  }
  if (g.topicCount < 1) e["topics"] = QString("number of topics k must be >= 1, got %1").arg(g.topicCount);
  if (!std::isfinite(g.alpha0) || g.alpha0 <= 0)
    e["alpha0"] = QString("α₀ must be > 0, got %1").arg(num(g.alpha0));
  if (e.isEmpty() && s.source == SessionState::Source::Synthetic) {
    const Status st = validateGeneratorParams(g);  // resource limits (huge corpora)
    if (!st.isOk()) e["docs"] = QString::fromStdString(st.message());
  }
  if (!std::isfinite(s.epsilon) || s.epsilon <= 0)
    e["epsilon"] = QString("total ε must be > 0, got %1").arg(num(s.epsilon));
  if (!std::isfinite(s.delta) || s.delta <= 0 || s.delta >= 1)
    e["delta"] = QString("total δ must be in (0, 1), got %1").arg(num(s.delta));
  if (s.mechanism == Mechanism::ClassicGaussian && s.edges && !e.contains("epsilon")) {
    // The classic Gaussian is only proven for ε < 1 per release (SPEC §8).
    const int releases = static_cast<int>(planReleases(s.edges, s.shareReleases, s.bounds).size());
    if (releases > 0 && s.epsilon / releases >= 1.0)
      e["epsilon"] = QString("the classic Gaussian needs ε < 1 per release; ε %1 over %2 releases gives %3")
                         .arg(num(s.epsilon)).arg(releases).arg(num(s.epsilon / releases));
  }
  if (s.mechanism == Mechanism::PrintedClosedForm && s.edges)
    e["mechanism"] = "the printed closed form is not private (SPEC §8); it is a demonstration only";
  if (!std::isfinite(s.maxLength) || s.maxLength < 3)
    e["max_length"] = QString("the clipping length L_max must be >= 3, got %1").arg(num(s.maxLength));
  for (double w : s.splitWeights) {
    if (!std::isfinite(w) || w <= 0) {
      e["split"] = QString("split weights must be finite and > 0, got %1 in '%2'").arg(num(w), splitToText(s.splitWeights));
      break;
    }
  }
  if (s.trials < 1 || s.trials > 50) e["trials"] = QString("trials must be in 1..50, got %1").arg(s.trials);
  if (auto eps = parseEpsilons(s.sweepEpsilons.toStdString()); !eps.ok()) {
    e["sweep_epsilons"] = QString::fromStdString(eps.status().message());
  } else if (eps.value().size() > 50) {
    e["sweep_epsilons"] = QString("at most 50 ε values in the session's sweep, got %1").arg(eps.value().size());
  }
  if (s.decomposer != "robust" && s.decomposer != "simultaneous")
    e["decomposer"] = QString("decomposer must be robust or simultaneous, got '%1'").arg(s.decomposer);
  return e;
}

QString splitToText(const std::vector<double>& weights) {
  if (weights.empty()) return "uniform";
  QStringList parts;
  for (double w : weights) {
    // The shortest text that reads back exactly (so 0.1 is "0.1", not 0.10000000000000001).
    QString t = QString::number(w, 'g', 17);
    for (int p = 1; p < 17; ++p) {
      const QString c = QString::number(w, 'g', p);
      if (c.toDouble() == w) { t = c; break; }
    }
    parts << t;
  }
  return parts.join(',');
}

Result<std::vector<double>> parseSplitText(const QString& text) {
  QString t = text.trimmed();
  t.remove(' ');
  auto r = parseSplit(t.toStdString());
  if (!r.ok()) {
    return invalidArgument(QString("split: %1 (use 'uniform' or one weight per release, e.g. 1,2,3), got '%2'")
                               .arg(QString::fromStdString(r.status().message()), text).toStdString());
  }
  return r;
}

QString seedToText(std::uint64_t seed) { return QString::number(static_cast<qulonglong>(seed)); }

Result<std::uint64_t> parseSeed(const QString& text, const QString& what) {
  const QString t = text.trimmed();
  bool ok = !t.isEmpty();
  for (QChar c : t) ok = ok && c.isDigit() && c.unicode() < 128;
  qulonglong v = ok ? t.toULongLong(&ok) : 0;
  if (!ok) {
    return invalidArgument(
        QString("%1 must be a whole number in 0..18446744073709551615, got '%2'").arg(what, text).toStdString());
  }
  return static_cast<std::uint64_t>(v);
}

QString edgeSetLabel(EdgeSet edges) {
  const auto p = presetOf(edges);
  if (!p) return QString("custom {%1}").arg(QString::fromStdString(edgeSetToString(edges)));
  switch (*p) {
    case Preset::None: return "none (non-private)";
    case Preset::Input: return "input perturbation";
    default: return QString("config %1").arg(presetName(*p));
  }
}

QJsonObject sessionToJson(const SessionState& s) {
  const GeneratorParams& g = s.generator;
  QJsonArray edges;
  for (int e = 0; e < kEdgeCount; ++e)
    if (contains(s.edges, e)) edges.append(QString("e%1").arg(e));
  QJsonObject lesson;
  if (!s.lessonTitle.isEmpty() || !s.lessonText.isEmpty()) lesson = {{"title", s.lessonTitle}, {"text", s.lessonText}};
  QJsonObject json{
      {"format", "dplda-explorer session"},
      {"version", kSessionVersion},
      {"corpus", QJsonObject{{"source", s.source == SessionState::Source::Uci    ? "uci"
                                        : s.source == SessionState::Source::Text ? "text"
                                                                                 : "synthetic"},
                             {"path", s.corpusPath},
                             {"separator", s.separator}}},
      {"generator", QJsonObject{{"vocab", g.vocabSize},
                                {"topics", g.topicCount},
                                {"docs", g.docCount},
                                {"alpha0", g.alpha0},
                                {"prior", g.prior == GeneratorParams::Prior::Random ? "random" : "symmetric"},
                                {"beta", g.beta},
                                {"doc_length", g.meanLength},
                                {"fixed_length", g.fixedLength},
                                {"seed", seedToText(g.seed)}}},
      {"model", QJsonObject{{"decomposer", s.decomposer}, {"init_seed", seedToText(s.initSeed)}}},
      {"privacy", QJsonObject{{"edges", edges},
                              {"epsilon", s.epsilon},
                              {"delta", s.delta},
                              {"mechanism", mechanismName(s.mechanism)},
                              {"bounds", boundSetName(s.bounds)},
                              {"share_releases", s.shareReleases},
                              {"split", splitToText(s.splitWeights)},
                              {"noise_seed", s.noiseSeed ? QJsonValue(seedToText(*s.noiseSeed)) : QJsonValue()},
                              {"max_length", s.maxLength}}},
      {"sweep", QJsonObject{{"trials", s.trials}, {"epsilons", s.sweepEpsilons}, {"compare_presets", s.comparePresets}}},
      {"pinned", s.pinned},
      {"pinned_sweeps", s.pinnedSweeps},
  };
  if (!lesson.isEmpty()) json.insert("lesson", lesson);
  return json;
}

Result<SessionState> sessionFromJson(const QJsonObject& json) {
  SessionState s;
  if (json.contains("version") && json.value("version").toInt(-1) != kSessionVersion) {
    return bad(QString("session: unsupported version %1 (this build reads version %2)")
                   .arg(json.value("version").toVariant().toString()).arg(kSessionVersion));
  }
  auto section = [&](const char* key, QJsonObject& out) -> Status {
    if (!json.contains(key)) return Status::ok();
    if (!json.value(key).isObject()) return bad(QString("session: '%1' must be an object").arg(key));
    out = json.value(key).toObject();
    return Status::ok();
  };
  QJsonObject corpus, gen, model, priv, sweep, lesson;
  DPLDA_RETURN_IF_ERROR(section("corpus", corpus));
  DPLDA_RETURN_IF_ERROR(section("generator", gen));
  DPLDA_RETURN_IF_ERROR(section("model", model));
  DPLDA_RETURN_IF_ERROR(section("privacy", priv));
  DPLDA_RETURN_IF_ERROR(section("sweep", sweep));
  DPLDA_RETURN_IF_ERROR(section("lesson", lesson));

  QString source = "synthetic";
  DPLDA_RETURN_IF_ERROR(readString(corpus, "source", "corpus", source));
  if (source == "uci") s.source = SessionState::Source::Uci;
  else if (source == "text") s.source = SessionState::Source::Text;
  else if (source != "synthetic")
    return bad("session: corpus.source must be synthetic, uci or text, got '" + source + "'");
  DPLDA_RETURN_IF_ERROR(readString(corpus, "path", "corpus", s.corpusPath));
  DPLDA_RETURN_IF_ERROR(readString(corpus, "separator", "corpus", s.separator));

  GeneratorParams& g = s.generator;
  DPLDA_RETURN_IF_ERROR(readInt(gen, "vocab", "generator", g.vocabSize));
  DPLDA_RETURN_IF_ERROR(readInt(gen, "topics", "generator", g.topicCount));
  DPLDA_RETURN_IF_ERROR(readInt(gen, "docs", "generator", g.docCount));
  DPLDA_RETURN_IF_ERROR(readNumber(gen, "alpha0", "generator", g.alpha0));
  QString prior = "random";
  DPLDA_RETURN_IF_ERROR(readString(gen, "prior", "generator", prior));
  if (prior == "symmetric") g.prior = GeneratorParams::Prior::Symmetric;
  else if (prior != "random") return bad("session: generator.prior must be random or symmetric, got '" + prior + "'");
  DPLDA_RETURN_IF_ERROR(readNumber(gen, "beta", "generator", g.beta));
  DPLDA_RETURN_IF_ERROR(readNumber(gen, "doc_length", "generator", g.meanLength));
  DPLDA_RETURN_IF_ERROR(readBool(gen, "fixed_length", "generator", g.fixedLength));
  DPLDA_RETURN_IF_ERROR(readSeed(gen, "seed", "generator", g.seed));

  DPLDA_RETURN_IF_ERROR(readString(model, "decomposer", "model", s.decomposer));
  DPLDA_RETURN_IF_ERROR(readSeed(model, "init_seed", "model", s.initSeed));

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
  DPLDA_RETURN_IF_ERROR(readNumber(priv, "epsilon", "privacy", s.epsilon));
  DPLDA_RETURN_IF_ERROR(readNumber(priv, "delta", "privacy", s.delta));
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
  DPLDA_RETURN_IF_ERROR(readNumber(priv, "max_length", "privacy", s.maxLength));
  DPLDA_RETURN_IF_ERROR(readInt(sweep, "trials", "sweep", s.trials));
  DPLDA_RETURN_IF_ERROR(readString(sweep, "epsilons", "sweep", s.sweepEpsilons));
  DPLDA_RETURN_IF_ERROR(readBool(sweep, "compare_presets", "sweep", s.comparePresets));
  if (json.contains("pinned")) {
    if (!json.value("pinned").isArray()) return bad("session: 'pinned' must be an array");
    s.pinned = json.value("pinned").toArray();
  }
  if (json.contains("pinned_sweeps")) {
    if (!json.value("pinned_sweeps").isArray()) return bad("session: 'pinned_sweeps' must be an array");
    s.pinnedSweeps = json.value("pinned_sweeps").toArray();
  }
  DPLDA_RETURN_IF_ERROR(readString(lesson, "title", "lesson", s.lessonTitle));
  DPLDA_RETURN_IF_ERROR(readString(lesson, "text", "lesson", s.lessonText));
  return s;
}

Status saveSession(const SessionState& s, const QString& path) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly)) {
    return ioError(QString("cannot write session '%1': %2").arg(path, f.errorString()).toStdString());
  }
  f.write(QJsonDocument(sessionToJson(s)).toJson(QJsonDocument::Indented));
  if (!f.commit()) return ioError(QString("cannot write session '%1': %2").arg(path, f.errorString()).toStdString());
  return Status::ok();
}

Result<SessionState> loadSession(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    return ioError(QString("cannot open session '%1': %2").arg(path, f.errorString()).toStdString());
  }
  QJsonParseError err;
  const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
  if (err.error != QJsonParseError::NoError) {
    return bad(QString("session '%1' is not valid JSON at offset %2: %3").arg(path).arg(err.offset).arg(err.errorString()));
  }
  if (!doc.isObject()) return bad(QString("session '%1' must hold a JSON object").arg(path));
  return sessionFromJson(doc.object());
}

}  // namespace dplda
