// sweep.json (core/experiments/sweep_archive.h): a finished sweep written and read back gives the
// same tables and report; a release-only archive holds released values only; a malformed file is
// refused naming the field.
#include <QtTest>
#include <nlohmann/json.hpp>

#include "core/experiments/report.h"
#include "core/experiments/sweep.h"
#include "core/experiments/sweep_archive.h"
#include "tests/experiments/sweep_test_case.h"

using namespace dplda;
using json = nlohmann::json;

namespace {

SweepArchive runArchive(bool releaseOnly) {
  static const SyntheticCorpus sc = sweep_test::makeCorpus(30, 3, 3000, 4);
  SweepSpec s;
  s.name = "archive-test";
  s.cases = {sweep_test::loadedCase(sc, "N=3000")};
  // Spectral configurations that release and refuse (2 under sound bounds), one with its own
  // accountant, whitened, and the non-private baseline a release-only archive leaves out.
  s.configurations = parseConfigurations("none,1,2,1/clip/gdp,whitened/gdp").value();
  s.epsilons = {1.0, 10.0};
  s.trials = 2;
  s.holdout = 0.2;
  s.releaseOnly = releaseOnly;
  s.threads = 2;
  auto r = runSweep(s);
  if (!r.ok()) qFatal("%s", r.status().message().c_str());
  SweepArchive a;
  a.name = "archive-test";
  a.title = "An archive";
  a.description = "two epsilons";
  a.commandLine = "dplda sweep --configs none,1,2 --out DIR";
  a.seedNote = "all seeds derived from --seed 1";
  a.result = std::move(r.value());
  return a;
}

ReportContext contextOf(const SweepArchive& a) {
  ReportContext c;
  c.title = a.title;
  c.description = a.description;
  c.commandLine = a.commandLine;
  c.seedNote = a.seedNote;
  return c;
}

// The archive's text with one edit made to its JSON.
std::string edited(const std::string& text, const std::function<void(json&)>& edit) {
  json j = json::parse(text);
  edit(j);
  return j.dump();
}

}  // namespace

class TestSweepArchive : public QObject {
  Q_OBJECT

 private slots:
  void roundTripGivesTheSameTablesAndReport() {
    const SweepArchive a = runArchive(false);
    const std::string text = sweepArchiveJson(a, a.result);
    auto back = parseSweepArchive(text, "sweep.json");
    QVERIFY2(back.ok(), back.status().message().c_str());
    const SweepResult& r = back->result;
    QCOMPARE(back->name, a.name);
    QCOMPARE(back->commandLine, a.commandLine);
    QCOMPARE(r.rows.size(), a.result.rows.size());
    QCOMPARE(sweepResultsCsv(r), sweepResultsCsv(a.result));
    QCOMPARE(sweepSummaryCsv(r), sweepSummaryCsv(a.result));
    QCOMPARE(sweepTimingsCsv(r), sweepTimingsCsv(a.result));
    QCOMPARE(sweepReportMarkdown(r, contextOf(back.value())), sweepReportMarkdown(a.result, contextOf(a)));
    static const QRegularExpression nonFinite("(^|[^A-Za-z_])-?(nan|inf)([^A-Za-z_]|$)|:\\s*null");
    QVERIFY(!nonFinite.match(QString::fromStdString(text)).hasMatch());  // issue 28 §6
    // Every number survives (shortest round-trip doubles), so writing again gives the same text.
    QCOMPARE(sweepArchiveJson(back.value(), back->result), text);
    // What the figures and the report read besides the tables.
    QCOMPARE(r.spec.configurations[3].accountant.has_value(), true);
    QCOMPARE(r.spec.configurations[4].whitened.enabled, true);
    QCOMPARE(r.spec.seeds.noise, a.result.spec.seeds.noise);
    QCOMPARE(r.cases[0].sigmaK, a.result.cases[0].sigmaK);
    QCOMPARE(r.rows[5].noiseScales.size(), a.result.rows[5].noiseScales.size());
    // Configuration 2 refuses under the sound bounds: its reason survives.
    bool refused = false;
    for (const SweepRow& row : r.rows) refused = refused || (!row.released && !row.reason.empty());
    QVERIFY(refused);
  }

  void releaseOnlyArchiveHoldsReleasedValuesOnly() {
    const SweepArchive a = runArchive(true);
    const std::string text = sweepArchiveJson(a, a.result);
    const json j = json::parse(text);
    for (const json& row : j["rows"]) {
      QVERIFY(row["config"] != 0);  // "none", the non-private baseline, is left out
      for (const char* exact : {"sigma_k", "gamma_s", "loss_l2", "perplexity", "coherence_npmi", "elapsed_ms"})
        QVERIFY2(!row.contains(exact), exact);
      QVERIFY(row.contains("sigma_k_tilde") && row.contains("error_l2"));
    }
    for (const json& c : j["cases"])
      for (const char* exact : {"sigma_k", "sigma_k_plus_1", "gamma_s", "baseline_error_l2", "baseline_perplexity",
                                "dropped_documents", "prepare_ms"})
        QVERIFY2(!c.contains(exact), exact);
    QCOMPARE(j["elapsed_ms"], json("not computed"));
    // No NaN, infinity or null anywhere (issue 28 §6).
    static const QRegularExpression nonFinite("(^|[^A-Za-z_])-?(nan|inf)([^A-Za-z_]|$)|:\\s*null");
    QVERIFY(!nonFinite.match(QString::fromStdString(text)).hasMatch());
    auto back = parseSweepArchive(text, "sweep.json");
    QVERIFY2(back.ok(), back.status().message().c_str());
    QCOMPARE(sweepResultsCsv(back->result), sweepResultsCsv(a.result));
    QCOMPARE(sweepSummaryCsv(back->result), sweepSummaryCsv(a.result));
    QCOMPARE(sweepReportMarkdown(back->result, contextOf(back.value())), sweepReportMarkdown(a.result, contextOf(a)));
    QVERIFY(std::isnan(back->result.cases[0].sigmaK));
  }

  void malformedArchivesAreRefusedNamingTheField() {
    const SweepArchive broken = runArchive(false);
    const std::string text = sweepArchiveJson(broken, broken.result);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"{\"format\": ", "not valid JSON"},
        {"[1, 2]", "must be an object"},
        {edited(text, [](json& j) { j.erase("format"); }), "format must be \"dplda-sweep\""},
        {edited(text, [](json& j) { j["version"] = 2; }), "version 2 is newer"},
        {edited(text, [](json& j) { j["rows"][0]["case"] = 7; }), "rows[0].case must be an integer in [0, 0]"},
        {edited(text, [](json& j) { j["rows"][3]["error_l2"] = "small"; }), "rows[3].error_l2 must be a number"},
        {edited(text, [](json& j) { j["rows"][1] = j["rows"][0]; }), "a second entry for the same trial"},
        {edited(text, [](json& j) { j["summary"].erase(2); }), "summary has 9 points, the spec makes 10"},
        {edited(text, [](json& j) { j["spec"]["seeds"]["noise"] = "-1"; }), "spec.seeds.noise must be a seed"},
        {edited(text, [](json& j) { j["spec"]["mechanism"] = "magic"; }), "spec.mechanism"},
        {edited(text, [](json& j) { j["spec"]["epsilons"][1] = "not computed"; }), "spec.epsilons[1] must be finite and > 0"},
        {edited(text, [](json& j) { j["spec"]["trials"] = 3; }), "rows has 20 trials, the spec makes 30"},
        {edited(text, [](json& j) { j["summary"][0]["released"] = 5; }), "summary[0].released must be an integer in [0, 2]"},
        {edited(text, [](json& j) { j["cases"][0].erase("sigma_k"); }), "cases[0].sigma_k is missing"},
        {edited(text, [](json& j) { j["experiment"]["kind"] = "tpm-noise"; }), "experiment.kind has the unknown value"},
    };
    for (const auto& [bad, expected] : cases) {
      auto r = parseSweepArchive(bad, "sweep.json");
      QVERIFY2(!r.ok(), expected.c_str());
      QCOMPARE(r.status().code(), StatusCode::BadInput);
      QVERIFY2(r.status().message().find(expected) != std::string::npos, r.status().message().c_str());
      QVERIFY2(r.status().message().rfind("sweep.json", 0) == 0, r.status().message().c_str());
    }
  }

  void readingRefusesWhatIsNotAnArchiveFile() {
    QTemporaryDir dir;
    auto folder = readSweepArchive(dir.path().toStdString());
    QVERIFY(!folder.ok());
    QCOMPARE(folder.status().code(), StatusCode::IoError);
    auto missing = readSweepArchive((dir.path() + "/sweep.json").toStdString());
    QVERIFY(!missing.ok());
    QVERIFY(missing.status().message().find("not found") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestSweepArchive)
#include "tst_sweep_archive.moc"
