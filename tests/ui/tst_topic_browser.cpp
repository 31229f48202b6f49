// The topic browser (ui/panels/topic_browser.h): the map, the relevance slider, two models side by
// side, export; and in the app, the session's non-private model beside its private releases.
#include <QComboBox>
#include <QFile>
#include <QSignalSpy>
#include <QSlider>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "small_session.h"
#include "ui/main_window.h"
#include "ui/panels/results_panel.h"
#include "ui/panels/topic_browser.h"
#include "ui/panels/topics_view.h"
#include "ui/plots/topic_map_plot.h"
#include "ui/plots/topic_terms_plot.h"
#include "ui/plots/topics_plot.h"
#include "ui/worker/run_worker.h"

using namespace dplda;

namespace {

// Four topics over six words. Word 0 ("the") is common to every topic; the others belong to one
// topic each, except word 5, shared by topics 2 and 3. α differ, so the prevalences do: 0.1, 0.4,
// 0.2, 0.3.
LdaModel nonPrivateModel() {
  LdaModel m;
  m.alpha = Eigen::Vector4d(0.1, 0.4, 0.2, 0.3);
  m.topics = Eigen::MatrixXd::Zero(6, 4);
  m.topics.col(0) << 0.55, 0.45, 0, 0, 0, 0;
  m.topics.col(1) << 0.5, 0, 0.5, 0, 0, 0;
  m.topics.col(2) << 0.4, 0, 0, 0.4, 0, 0.2;
  m.topics.col(3) << 0.45, 0, 0, 0, 0.35, 0.2;
  return m;
}

// The same topics in another order (a "private" model whose matching must undo the permutation).
LdaModel permuted(const LdaModel& m, const std::vector<int>& order) {
  LdaModel out = m;
  for (int t = 0; t < m.topicCount(); ++t) {
    out.topics.col(t) = m.topics.col(order[t]);
    out.alpha[t] = m.alpha[order[t]];
  }
  return out;
}

const QStringList kWords{"the", "apple", "boat", "cloud", "drum", "echo"};

QVector<BrowsedModel> twoModels() {
  return {{"spectral-private@1", "private (ε 1)", permuted(nonPrivateModel(), {2, 0, 3, 1}), true},
          {"spectral", "non-private", nonPrivateModel(), false}};
}

}  // namespace

class TestTopicBrowser : public QObject {
  Q_OBJECT
 private slots:
  void mapHasACirclePerTopicSizedByPrevalence() {
    TopicBrowser b;
    b.resize(1000, 420);
    b.setModels(twoModels(), kWords);
    QVERIFY(!b.bothOnMap()->isChecked());  // by default the map of one model, as in LDAvis
    QCOMPARE(b.map()->companionCount(), 0);
    b.show();
    QVERIFY(QTest::qWaitForWindowExposed(&b));
    TopicMapPlot* map = b.map();
    map->replot();
    // The map shows the non-private model (listed second, so chosen by kind, not position).
    QCOMPARE(b.firstModel()->currentData().toString(), QString("spectral"));
    QCOMPARE(b.secondModel()->currentData().toString(), QString("spectral-private@1"));
    QCOMPARE(map->topicCount(), 4);
    QCOMPARE(map->graphCount(), 4);
    // Areas ∝ prevalence: ordered as α, and in its ratios (topic 1 has 4× the weight of topic 0).
    QVector<double> area;
    for (int t = 0; t < 4; ++t) area << std::pow(map->circleDiameter(t), 2);
    QVERIFY(area[1] > area[3] && area[3] > area[2] && area[2] > area[0]);
    QVERIFY(std::abs(area[1] / area[0] - 4.0) < 1e-9);
    QVERIFY(std::abs(area[3] / area[2] - 1.5) < 1e-9);
    // Every circle lies inside the data area, and distances on the map follow the JS distances:
    // topics 2 and 3 share a word and are the closest pair.
    const QRect data = map->axisRect()->rect();
    for (int t = 0; t < 4; ++t) {
      const QPointF c = map->circleCentre(t);
      const double r = map->circleDiameter(t) / 2;
      QVERIFY2(data.contains(QRect(int(c.x() - r), int(c.y() - r), int(2 * r), int(2 * r))), qPrintable(QString::number(t)));
    }
    auto gap = [&](int s, int t) {
      const QPointF d = map->circleCentre(s) - map->circleCentre(t);
      return std::hypot(d.x(), d.y());
    };
    for (auto [s, t] : {std::pair{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}}) QVERIFY(gap(2, 3) < gap(s, t));
  }

  void clickingACircleSelectsItsTopicInBothModels() {
    TopicBrowser b;
    b.resize(1000, 420);
    b.setModels(twoModels(), kWords);
    b.show();
    QVERIFY(QTest::qWaitForWindowExposed(&b));
    b.map()->replot();
    QSignalSpy picked(b.map(), &TopicMapPlot::currentTopicChanged);
    const QPointF centre = b.map()->circleCentre(3);
    QCOMPARE(b.map()->topicAt(centre), 3);
    QTest::mouseClick(b.map(), Qt::LeftButton, Qt::NoModifier, centre.toPoint());
    QCOMPARE(picked.count(), 1);
    QCOMPARE(b.map()->currentTopic(), 3);
    QCOMPARE(b.firstTerms()->topic(), 3);
    // The private model holds the same topics permuted by {2, 0, 3, 1}: topic 3 is its topic 2.
    for (int t = 0; t < 4; ++t) QCOMPARE(b.matchedTopic(t), std::vector<int>({1, 3, 0, 2})[t]);
    QCOMPARE(b.secondTerms()->topic(), 2);
    QCOMPARE(b.secondTerms()->shownWords(), b.firstTerms()->shownWords());
    QVERIFY(b.secondTerms()->footnote().contains("matches topic 4"));
    // A click off every circle keeps the choice.
    QTest::mouseClick(b.map(), Qt::LeftButton, Qt::NoModifier, b.map()->axisRect()->rect().topLeft() + QPoint(2, 2));
    QCOMPARE(b.map()->currentTopic(), 3);
  }

  void bothModelsShareTheMap() {
    TopicBrowser b;
    b.resize(1000, 420);
    QVector<BrowsedModel> models = twoModels();
    // A third model whose topic 0 has moved: only its ring leaves its partner.
    LdaModel moved = nonPrivateModel();
    moved.topics.col(0) << 0.1, 0.3, 0.2, 0.2, 0.1, 0.1;
    models.prepend({"spectral-private@2", "private (ε 2)", moved, true});
    b.setModels(models, kWords);
    b.show();
    QVERIFY(QTest::qWaitForWindowExposed(&b));
    TopicMapPlot* map = b.map();
    QCOMPARE(b.secondModel()->currentData().toString(), QString("spectral-private@2"));
    b.secondModel()->setCurrentIndex(b.secondModel()->findData("spectral-private@1"));
    QCOMPARE(map->companionCount(), 0);
    b.bothOnMap()->setChecked(true);
    map->replot();
    QCOMPARE(map->topicCount(), 4);
    QCOMPARE(map->companionCount(), 4);
    QCOMPARE(map->graphCount(), 8);
    // The permuted copy: every ring sits on its matched topic, the same size.
    for (int t = 0; t < 4; ++t) {
      const QPointF d = map->circleCentre(t) - map->circleCentre(4 + b.matchedTopic(t));
      QVERIFY2(std::hypot(d.x(), d.y()) < 1e-6, qPrintable(QString::number(t)));
      QVERIFY(std::abs(map->circleDiameter(t) - map->circleDiameter(4 + b.matchedTopic(t))) < 1e-9);
    }
    QCOMPARE(map->csvTable().rows.size(), 8);
    // The moved topic's ring leaves topic 0; the others stay on theirs.
    b.secondModel()->setCurrentIndex(b.secondModel()->findData("spectral-private@2"));
    map->replot();
    QCOMPARE(b.matchedTopic(0), 0);
    auto apart = [&](int t) {
      const QPointF d = map->circleCentre(t) - map->circleCentre(4 + b.matchedTopic(t));
      return std::hypot(d.x(), d.y());
    };
    QVERIFY(apart(0) > 20);
    for (int t = 1; t < 4; ++t) QVERIFY(apart(t) < 1e-6);
    QVERIFY(map->footnote().contains("dashed: private (ε 2)"));
    b.bothOnMap()->setChecked(false);
    QCOMPARE(map->companionCount(), 0);
  }

  void sliderReordersTheTerms() {
    TopicBrowser b;
    b.setModels(twoModels(), kWords);
    b.setCurrentTopic(2);  // p(w|t): the .4, cloud .4, echo .2
    b.lambdaSlider()->setValue(100);
    // λ = 1: by probability in the topic; "the" (word 0) ties with "cloud" and comes first by id.
    QCOMPARE(b.firstTerms()->lambda(), 1.0);
    QCOMPARE(b.firstTerms()->shownWords(), QVector<int>({0, 3, 5}));
    // λ = 0: by lift. cloud is only in this topic (lift 1/0.2 = 5); echo is shared with topic 3
    // (p(echo) = 0.2·0.2 + 0.3·0.2 = 0.1, lift 2); "the" is everywhere (p = 0.47, lift 0.85).
    b.lambdaSlider()->setValue(0);
    QCOMPARE(b.firstTerms()->lambda(), 0.0);
    QCOMPARE(b.firstTerms()->shownWords(), QVector<int>({3, 5, 0}));
    // Both models move together.
    QCOMPARE(b.secondTerms()->lambda(), 0.0);
    QCOMPARE(b.secondTerms()->shownWords(), QVector<int>({3, 5, 0}));
    // The data behind the plot: the relevance column is sorted, λ recorded.
    const CsvTable csv = b.firstTerms()->csvTable();
    QCOMPARE(csv.rows.size(), 3);
    QCOMPARE(csv.rows[0][3], QString("cloud"));
    QCOMPARE(csv.rows[0][8], QString("0"));
    QVERIFY(csv.rows[0][7].toDouble() > csv.rows[1][7].toDouble());
    QVERIFY(std::abs(csv.rows[1][6].toDouble() - 2.0) < 1e-12);  // echo's lift
  }

  void exportsWriteFiles() {
    QTemporaryDir dir;
    TopicBrowser b;
    b.resize(1000, 420);
    b.setModels(twoModels(), kWords);
    b.bothOnMap()->setChecked(true);
    for (PlotWidget* p : {static_cast<PlotWidget*>(b.map()), static_cast<PlotWidget*>(b.firstTerms())}) {
      for (ExportFormat f : {ExportFormat::Pdf, ExportFormat::Svg, ExportFormat::Png}) {
        const QString path = dir.filePath(p->objectName() + "." + exportFormatSuffix(f));
        QString error;
        QVERIFY2(p->exportTo(path, f, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        QVERIFY2(bytes.size() > 1000, qPrintable(path));
        if (f == ExportFormat::Svg) QVERIFY(bytes.contains("<svg"));
        if (f == ExportFormat::Pdf) QVERIFY(bytes.startsWith("%PDF"));
      }
    }
    // The map's data: a row per topic of both models, with its prevalence and match.
    const CsvTable csv = b.map()->csvTable();
    QCOMPARE(csv.rows.size(), 8);
    QCOMPARE(csv.rows[1][4], QString("0.4"));
    QCOMPARE(csv.rows[1][5], QString("4"));  // topic 2 is the private model's topic 4
    QCOMPARE(csv.rows[4][0], QString("companion"));
  }

  void modelsThatCannotBeShownSaySo() {
    TopicBrowser b;
    QVector<BrowsedModel> models = twoModels();
    LdaModel three = nonPrivateModel();
    three.topics.conservativeResize(6, 3);
    three.alpha.conservativeResize(3);
    models[0].model = three;  // 3 topics against 4: no matching of every topic
    b.setModels(models, kWords);
    QCOMPARE(b.map()->topicCount(), 4);
    QVERIFY2(b.problem().contains("cannot be matched"), qPrintable(b.problem()));
    QCOMPARE(b.matchedTopic(0), -1);
    QVERIFY(!b.secondTerms()->hasData());
    // A topic that is not a distribution: named, nothing drawn, nothing crashes.
    LdaModel bad = nonPrivateModel();
    bad.topics(1, 0) = 0.9;
    b.setModels({{"spectral", "non-private", bad, false}}, kWords);
    QVERIFY2(b.problem().contains("topic 0 sums to 1.45"), qPrintable(b.problem()));
    QVERIFY(!b.map()->hasData());
    QVERIFY(!b.firstTerms()->hasData());
  }

  void theAppComparesTheSessionsModels() {
    MainWindow w;
    w.setAutoRun(false);
    SessionState s = test::smallSession(Preset::Config1);
    s.epsilon = 2;
    w.model()->reset(s);
    auto runAndWait = [&] {
      w.runNow();
      const quint64 id = w.runner()->currentId();
      return QTest::qWaitFor([&] { return w.shownRunId() == id; }, 60000);
    };
    QVERIFY(runAndWait());
    s.epsilon = 5;
    w.model()->edit(s, "ε 5");
    QVERIFY(runAndWait());
    TopicsView* view = w.results()->topicsView();
    TopicBrowser* b = view->browser();
    // The non-private model on the map, the latest private release beside it, and the release at
    // the other ε still offered (two ε side by side).
    QCOMPARE(b->firstModel()->currentData().toString(), QString("spectral"));
    QVERIFY2(b->secondModel()->currentText().contains("ε 5"), qPrintable(b->secondModel()->currentText()));
    bool otherEpsilon = false;
    for (int i = 0; i < b->secondModel()->count(); ++i) otherEpsilon |= b->secondModel()->itemText(i).contains("ε 2");
    QVERIFY(otherEpsilon);
    QCOMPARE(b->map()->topicCount(), 3);
    QVERIFY(b->secondTerms()->hasData());
    QVERIFY(b->matchedTopic(0) >= 0);
    // The results panel exports the map when the browser is the visible view.
    w.results()->setCurrentWidget(view);
    view->showBrowser(true);
    QCOMPARE(w.results()->currentPlot(), static_cast<PlotWidget*>(b->map()));
    view->showBrowser(false);
    QCOMPARE(w.results()->currentPlot(), static_cast<PlotWidget*>(view->plot()));
  }
};

QTEST_MAIN(TestTopicBrowser)
#include "tst_topic_browser.moc"
