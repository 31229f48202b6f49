#include "ui/session/session_privacy.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <cmath>

#include "core/common/text_escape.h"
#include "core/moments/clipped_moments.h"

namespace dplda {

namespace {

constexpr double kMaxClip = 1e6;  // far above any useful clipping bound (1 clips nothing in M̂2)

Status bad(const QString& msg) { return badInput(escapeControls(msg.toStdString())); }
QString num(double v) { return QString::number(v, 'g', 10); }
QString shown(const QJsonValue& v) {
  return QString::fromStdString(
      quoteText(QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact)).mid(1).chopped(1).toStdString()));
}

// An optional number in [lo, hi] (or (lo, hi] when loOpen); keeps `out` when the key is absent.
Status readNumber(const QJsonObject& o, const char* key, const QString& where, double lo, bool loOpen, double& out) {
  if (!o.contains(key)) return Status::ok();
  const QJsonValue v = o.value(key);
  if (!v.isDouble()) return bad(QString("session: %1.%2 must be a number, got %3").arg(where, QString(key), shown(v)));
  const double x = v.toDouble();
  if (!((loOpen ? x > lo : x >= lo) && x <= kMaxClip)) {
    return bad(QString("session: %1.%2 must be in %3%4, %5], got %6")
                   .arg(where, QString(key), loOpen ? "(" : "[", num(lo), num(kMaxClip), num(x)));
  }
  out = x;
  return Status::ok();
}

QString message(const Status& st) { return QString::fromStdString(st.message()); }

}  // namespace

EdgeSet whitenedEdges() { return (1u << 2) | (1u << 5) | (1u << 6); }

SessionState withWhitenedRelease(SessionState s) {
  s.edges = whitenedEdges();
  s.e6Release = SessionState::TensorRelease::Whitened;
  if (s.mechanism != Mechanism::AnalyticGaussian && s.mechanism != Mechanism::ClassicGaussian)
    s.mechanism = Mechanism::AnalyticGaussian;
  s.bounds = BoundSet::Sound;
  return s;
}

SessionState withEdges(SessionState s, EdgeSet edges) {
  s.edges = edges;
  if (s.whitenedRelease() && edges != whitenedEdges()) s.e6Release = SessionState::TensorRelease::Noise;
  return s;
}

PrivacyOptions privacyOptionsOf(const SessionState& s) {
  PrivacyOptions o;
  o.edges = s.edges;
  o.splitWeights = s.splitWeights;
  o.shareReleases = s.shareReleases;
  o.epsilon = s.epsilon;
  o.delta = s.delta;
  o.mechanism = s.mechanism;
  o.bounds = s.bounds;
  o.maxLength = s.maxLength;
  o.accountant = s.accountant;
  o.privateDecomposition = s.e6Release == SessionState::TensorRelease::Decomposition;
  o.whitened.enabled = s.whitenedRelease();
  o.whitened.m2Clip = {s.clipM1, s.clipM2};
  o.whitened.whitenedClip = s.clipWhitened;
  o.whitened.clipToRowBound = s.clipToRowBound;
  return o;
}

MomentClip momentClipOf(const SessionState& s) {
  if (!s.clipDocuments || s.isVariational() || s.edges == 0 || s.whitenedRelease()) return {};
  return {true, s.clipM1, s.clipM2, s.clipM3};
}

StatementInputs sessionStatementInputs(const SessionState& s, int docCount) {
  return statementInputs(privacyOptionsOf(s), docCount, momentClipOf(s));
}

const char* tensorReleaseName(SessionState::TensorRelease r) {
  switch (r) {
    case SessionState::TensorRelease::Decomposition: return "decomposition";
    case SessionState::TensorRelease::Whitened: return "whitened";
    default: return "noise";
  }
}

QString tensorReleaseLabel(SessionState::TensorRelease r) {
  switch (r) {
    case SessionState::TensorRelease::Decomposition: return QObject::tr("private decomposition");
    case SessionState::TensorRelease::Whitened: return QObject::tr("whitened release");
    default: return QObject::tr("noise on T");
  }
}

void addPrivacyOptionProblems(const SessionState& s, QMap<QString, QString>& e) {
  if (s.isVariational() || s.edges == 0) return;
  if (s.whitenedRelease()) {
    // Each bound against a valid whitened configuration, so that the message belongs to its field.
    PrivacyOptions ref;
    ref.edges = whitenedEdges();
    ref.whitened.enabled = true;
    auto check = [&](const char* key, double m1, double m2, double c) {
      PrivacyOptions o = ref;
      o.whitened.m2Clip = {m1, m2};
      o.whitened.whitenedClip = c;
      const Status st = validatePrivacyOptions(o);
      if (!st.isOk() && !e.contains(key)) e[key] = message(st);
    };
    check("clip_m1", s.clipM1, kDefaultClipM2, 0.0);
    check("clip_m2", kDefaultClipM1, s.clipM2, 0.0);
    check("clip_whitened", kDefaultClipM1, kDefaultClipM2, s.clipWhitened);
  }
  const MomentClip clip = momentClipOf(s);
  if (clip.enabled) {  // each bound on its own (core names C1, C2 or C3), then the combination
    const std::pair<const char*, MomentClip> fields[] = {
        {"clip_m1", {true, clip.m1, kDefaultClipM2, kDefaultClipM3}},
        {"clip_m2", {true, kDefaultClipM1, clip.m2, kDefaultClipM3}},
        {"clip_m3", {true, kDefaultClipM1, kDefaultClipM2, clip.m3}}};
    for (const auto& [key, c] : fields) {
      const Status st = validateMomentClip(c);
      if (!st.isOk() && !e.contains(key)) e[key] = message(st);
    }
    const Status st = validateMomentClipping(privacyOptionsOf(s), clip);
    if (!st.isOk()) e["clip_documents"] = QObject::tr("clip documents: %1").arg(message(st));
  }
  // The whole configuration, where the fields above and the budget's own checks are fine.
  for (const char* key : {"epsilon", "delta", "mechanism", "split", "max_length", "clip_m1", "clip_m2", "clip_whitened",
                          "clip_m3", "clip_documents"})
    if (e.contains(key)) return;
  const PrivacyOptions o = privacyOptionsOf(s);
  const Status st = validatePrivacyOptions(o);
  if (st.isOk()) return;
  const QString m = message(st);
  if (m.contains("accountant")) e["accountant"] = m;
  else if (s.e6Release != SessionState::TensorRelease::Noise) e["e6"] = m;
}

void writePrivacyOptionsJson(const SessionState& s, QJsonObject& privacy) {
  privacy.insert("accountant", accountantName(s.accountant));
  privacy.insert("e6", tensorReleaseName(s.e6Release));
  privacy.insert("whitened", QJsonObject{{"clip_m1", s.clipM1},
                                         {"clip_m2", s.clipM2},
                                         {"clip_whitened", s.clipWhitened},
                                         {"clip_to_row_bound", s.clipToRowBound}});
  privacy.insert("moment_clip", QJsonObject{{"enabled", s.clipDocuments}, {"clip_m3", s.clipM3}});
}

Status readPrivacyOptionsJson(const QJsonObject& privacy, SessionState& s) {
  if (privacy.contains("accountant")) {
    const QJsonValue v = privacy.value("accountant");
    auto a = v.isString() ? parseAccountant(v.toString().toStdString()) : Result<Accountant>(invalidArgument(""));
    if (!a.ok()) return bad("session: privacy.accountant must be basic or gdp, got " + shown(v));
    s.accountant = a.value();
  }
  if (privacy.contains("e6")) {
    const QString t = privacy.value("e6").toString();
    if (t == "noise") s.e6Release = SessionState::TensorRelease::Noise;
    else if (t == "decomposition") s.e6Release = SessionState::TensorRelease::Decomposition;
    else if (t == "whitened") s.e6Release = SessionState::TensorRelease::Whitened;
    else return bad("session: privacy.e6 must be noise, decomposition or whitened, got " + shown(privacy.value("e6")));
  }
  if (privacy.contains("moment_clip")) {
    if (!privacy.value("moment_clip").isObject()) return bad("session: privacy.moment_clip must be an object");
    const QJsonObject m = privacy.value("moment_clip").toObject();
    if (m.contains("enabled")) {
      if (!m.value("enabled").isBool()) return bad("session: privacy.moment_clip.enabled must be true or false");
      s.clipDocuments = m.value("enabled").toBool();
    }
    DPLDA_RETURN_IF_ERROR(readNumber(m, "clip_m3", "privacy.moment_clip", 0.0, true, s.clipM3));
  }
  if (!privacy.contains("whitened")) return Status::ok();
  if (!privacy.value("whitened").isObject()) return bad("session: privacy.whitened must be an object");
  const QJsonObject w = privacy.value("whitened").toObject();
  DPLDA_RETURN_IF_ERROR(readNumber(w, "clip_m1", "privacy.whitened", 0.0, true, s.clipM1));
  DPLDA_RETURN_IF_ERROR(readNumber(w, "clip_m2", "privacy.whitened", 0.0, true, s.clipM2));
  DPLDA_RETURN_IF_ERROR(readNumber(w, "clip_whitened", "privacy.whitened", 0.0, false, s.clipWhitened));
  if (w.contains("clip_to_row_bound")) {
    if (!w.value("clip_to_row_bound").isBool())
      return bad("session: privacy.whitened.clip_to_row_bound must be true or false");
    s.clipToRowBound = w.value("clip_to_row_bound").toBool();
  }
  return Status::ok();
}

}  // namespace dplda
