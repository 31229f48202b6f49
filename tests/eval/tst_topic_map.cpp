// The topic browser's numbers (core/eval/topic_map.h): Jensen–Shannon divergence, classical
// scaling (PCoA) and relevance, against properties and values worked out by hand.
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "core/eval/metrics.h"
#include "core/eval/topic_map.h"

using namespace dplda;

namespace {

Eigen::VectorXd vec(std::initializer_list<double> v) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(v.size()));
  int i = 0;
  for (double x : v) out[i++] = x;
  return out;
}

Eigen::MatrixXd euclideanDistances(const Eigen::MatrixXd& points) {  // rows are points
  Eigen::MatrixXd d(points.rows(), points.rows());
  for (Eigen::Index i = 0; i < points.rows(); ++i)
    for (Eigen::Index j = 0; j < points.rows(); ++j) d(i, j) = (points.row(i) - points.row(j)).norm();
  return d;
}

// Words: 0 "the" (in every topic), 1 and 2 only in topic 0, 3 and 4 only in topic 1.
LdaModel constructedModel() {
  LdaModel m;
  m.alpha = vec({1.0, 3.0});
  m.topics.resize(5, 2);
  m.topics.col(0) = vec({0.5, 0.3, 0.2, 0.0, 0.0});
  m.topics.col(1) = vec({0.6, 0.0, 0.0, 0.25, 0.15});
  return m;
}

}  // namespace

class TestTopicMap : public QObject {
  Q_OBJECT
 private slots:
  void jensenShannonProperties() {
    const Eigen::VectorXd p = vec({0.5, 0.25, 0.25, 0.0}), q = vec({0.1, 0.2, 0.3, 0.4});
    QCOMPARE(jensenShannonDivergence(p, p), 0.0);
    QCOMPARE(jensenShannonDivergence(p, q), jensenShannonDivergence(q, p));
    QVERIFY(jensenShannonDivergence(p, q) > 0.0);
    QVERIFY(jensenShannonDivergence(p, q) <= std::log(2.0));
    // Disjoint supports reach the bound ln 2.
    QVERIFY(std::abs(jensenShannonDivergence(vec({0.5, 0.5, 0, 0}), vec({0, 0, 0.3, 0.7})) - std::log(2.0)) < 1e-15);
    // By hand: p = (1, 0), q = (½, ½), m = (¾, ¼): ½ log(4/3) + ½(½ log(2/3) + ½ log 2) = ¾ log(4/3).
    QVERIFY(std::abs(jensenShannonDivergence(vec({1, 0}), vec({0.5, 0.5})) - 0.75 * std::log(4.0 / 3.0)) < 1e-15);
    QVERIFY(std::isnan(jensenShannonDivergence(vec({1, 0}), vec({1}))));

    const Eigen::MatrixXd d = jensenShannonDistances(constructedModel().topics);
    QCOMPARE(d.rows(), 2);
    QCOMPARE(d(0, 0), 0.0);
    QCOMPARE(d(0, 1), d(1, 0));
    QVERIFY(std::abs(d(0, 1) - std::sqrt(jensenShannonDivergence(constructedModel().topics.col(0),
                                                                  constructedModel().topics.col(1)))) < 1e-15);
  }

  void scalingReproducesPlanarDistances() {
    Eigen::MatrixXd points(6, 2);
    points << 0, 0, 3, 0, 0, 4, -2, 1, 1.5, -2.5, 5, 5;
    const Eigen::MatrixXd d = euclideanDistances(points);
    const Result<PrincipalCoordinates> pc = classicalScaling(d, 2);
    QVERIFY2(pc.ok(), pc.status().message().c_str());
    QCOMPARE(pc->coordinates.rows(), 6);
    QCOMPARE(pc->coordinates.cols(), 2);
    QVERIFY((euclideanDistances(pc->coordinates) - d).cwiseAbs().maxCoeff() < 1e-10);
    // Nothing beyond two dimensions: the other eigenvalues vanish and the map shows all the spread.
    for (Eigen::Index j = 2; j < 6; ++j) QVERIFY(std::abs(pc->eigenvalues[j]) < 1e-9);
    QVERIFY(std::abs(pc->explained - 1.0) < 1e-12);
    QVERIFY(pc->eigenvalues[0] >= pc->eigenvalues[1]);
    // Centred, and each axis' largest-magnitude coordinate is positive (a fixed picture).
    QVERIFY(pc->coordinates.colwise().sum().cwiseAbs().maxCoeff() < 1e-10);
    for (int j = 0; j < 2; ++j) {
      Eigen::Index big = 0;
      pc->coordinates.col(j).cwiseAbs().maxCoeff(&big);
      QVERIFY(pc->coordinates(big, j) > 0.0);
    }
  }

  void scalingOfSpaceAndLineAndOnePoint() {
    Eigen::MatrixXd space(5, 3);
    space << 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 1, 1, 1;
    const Eigen::MatrixXd d = euclideanDistances(space);
    const Result<PrincipalCoordinates> three = classicalScaling(d, 3);
    QVERIFY(three.ok());
    QVERIFY((euclideanDistances(three->coordinates) - d).cwiseAbs().maxCoeff() < 1e-10);
    // Projected to 2-D the spread is not all shown, and distances can only shrink.
    const Result<PrincipalCoordinates> two = classicalScaling(d, 2);
    QVERIFY(two->explained < 0.999 && two->explained > 0.5);
    QVERIFY(((euclideanDistances(two->coordinates) - d).array() <= 1e-10).all());
    // Collinear points: the second axis is 0.
    Eigen::MatrixXd line(4, 1);
    line << 0, 1, 3, 7;
    const Result<PrincipalCoordinates> l = classicalScaling(euclideanDistances(line), 2);
    QVERIFY(l->coordinates.col(1).cwiseAbs().maxCoeff() < 1e-7);
    QVERIFY((euclideanDistances(l->coordinates) - euclideanDistances(line)).cwiseAbs().maxCoeff() < 1e-10);
    const Result<PrincipalCoordinates> one = classicalScaling(Eigen::MatrixXd::Zero(1, 1), 2);
    QVERIFY(one.ok());
    QCOMPARE(one->coordinates.norm(), 0.0);
  }

  void scalingRejectsBadDistances() {
    Eigen::MatrixXd d = Eigen::MatrixXd::Zero(3, 3);
    d(0, 1) = 1.0;  // (1, 0) still 0
    Result<PrincipalCoordinates> r = classicalScaling(d, 2);
    QVERIFY(!r.ok());
    QVERIFY(QString::fromStdString(r.status().message()).contains("not symmetric"));
    d(1, 0) = 1.0;
    d(2, 2) = 0.5;
    r = classicalScaling(d, 2);
    QVERIFY(QString::fromStdString(r.status().message()).contains("(2, 2) = 0.5"));
    d(2, 2) = 0.0;
    d(0, 2) = d(2, 0) = std::nan("");
    QVERIFY(QString::fromStdString(classicalScaling(d, 2).status().message()).contains("(0, 2) = nan"));
    QVERIFY(!classicalScaling(Eigen::MatrixXd::Zero(2, 3), 2).ok());
    QVERIFY(!classicalScaling(Eigen::MatrixXd::Zero(0, 0), 2).ok());
    QVERIFY(!classicalScaling(Eigen::MatrixXd::Zero(2, 2), 0).ok());
  }

  void marginalAndPrevalenceComeFromTheModel() {
    const LdaModel m = constructedModel();
    const Eigen::VectorXd prev = topicPrevalence(m);
    QCOMPARE(prev[0], 0.25);
    QCOMPARE(prev[1], 0.75);
    const Eigen::VectorXd p = modelWordMarginal(m);
    // p("the") = ¼·0.5 + ¾·0.6 = 0.575; p(w1) = ¼·0.3; p(w3) = ¾·0.25.
    QVERIFY(std::abs(p[0] - 0.575) < 1e-15);
    QVERIFY(std::abs(p[1] - 0.075) < 1e-15);
    QVERIFY(std::abs(p[3] - 0.1875) < 1e-15);
    QVERIFY(std::abs(p.sum() - 1.0) < 1e-15);
  }

  void relevanceAtTheEnds() {
    const LdaModel m = constructedModel();
    const Eigen::VectorXd p = modelWordMarginal(m);
    // λ = 1: by p(w|t) — the same as the plain top words.
    const Eigen::VectorXd t0 = m.topics.col(0);
    QVERIFY(relevantTerms(t0, p, 1.0, 3) == topIndices(t0, 3));
    QVERIFY(relevantTerms(t0, p, 1.0, 3) == std::vector<int>({0, 1, 2}));
    QVERIFY((termRelevance(t0, p, 1.0).head(3) - t0.head(3).array().log().matrix()).norm() < 1e-15);
    // λ = 0: by lift p(w|t)/p(w). Words 1 and 2 occur only in topic 0: lift 1/¼ = 4 each (equal up
    // to rounding); "the" has lift 0.5/0.575 < 1 and drops to the end.
    const std::vector<int> lift0 = relevantTerms(t0, p, 0.0, 3);
    QVERIFY(std::is_permutation(lift0.begin(), lift0.begin() + 2, std::vector<int>({1, 2}).begin()));
    QCOMPARE(lift0[2], 0);
    const Eigen::VectorXd r0 = termRelevance(t0, p, 0.0);
    QVERIFY(std::abs(r0[1] - std::log(4.0)) < 1e-12);
    QVERIFY(std::abs(r0[0] - std::log(0.5 / 0.575)) < 1e-12);
    // Words absent from the topic are never listed, at any λ.
    QVERIFY(std::isinf(r0[3]) && r0[3] < 0);
    QCOMPARE(static_cast<int>(relevantTerms(t0, p, 0.6, 10).size()), 3);
    // In between: log φ − (1 − λ) log p, by hand at λ = 0.6 for word 2.
    QVERIFY(std::abs(termRelevance(t0, p, 0.6)[2] - (std::log(0.2) - 0.4 * std::log(0.05))) < 1e-12);
    // Topic 1 at λ = 0: w3 (lift 0.25/0.1875) and w4 tie at 4/3, above "the" (0.6/0.575).
    const Eigen::VectorXd t1 = m.topics.col(1);
    QVERIFY(relevantTerms(t1, p, 1.0, 3) == std::vector<int>({0, 3, 4}));
    const std::vector<int> lift1 = relevantTerms(t1, p, 0.0, 3);
    QVERIFY(std::is_permutation(lift1.begin(), lift1.begin() + 2, std::vector<int>({3, 4}).begin()));
    QCOMPARE(lift1[2], 0);
    QVERIFY(termRelevance(t0, p, -1.0) == termRelevance(t0, p, 0.0));  // λ clamped
  }

  void mapOfAModel() {
    LdaModel m;
    m.alpha = vec({1, 2, 3});
    m.topics.resize(4, 3);
    m.topics.col(0) = vec({0.7, 0.1, 0.1, 0.1});
    m.topics.col(1) = vec({0.7, 0.1, 0.1, 0.1});  // a duplicate: the same spot on the map
    m.topics.col(2) = vec({0.0, 0.0, 0.5, 0.5});
    const Result<TopicMap> map = topicMap(m);
    QVERIFY2(map.ok(), map.status().message().c_str());
    QCOMPARE(map->map.coordinates.rows(), 3);
    QVERIFY((map->map.coordinates.row(0) - map->map.coordinates.row(1)).norm() < 1e-12);
    // Three points with two coinciding embed exactly: the map's distances are the JS distances.
    const double mapped = (map->map.coordinates.row(0) - map->map.coordinates.row(2)).norm();
    QVERIFY(std::abs(mapped - map->distances(0, 2)) < 1e-12);
    QVERIFY(std::abs(map->prevalence[2] - 0.5) < 1e-15);
  }

  void badModelsAreNamed() {
    LdaModel m = constructedModel();
    m.topics(1, 0) = -0.1;
    QVERIFY(QString::fromStdString(topicMap(m).status().message()).contains("topic 0, word 1: p = -0.1"));
    m = constructedModel();
    m.topics(1, 1) = 0.5;
    QVERIFY(QString::fromStdString(topicMap(m).status().message()).contains("topic 1 sums to 1.5"));
    m = constructedModel();
    m.alpha = vec({1.0});
    QVERIFY(QString::fromStdString(topicMap(m).status().message()).contains("α has 1 entries for 2 topics"));
    m.alpha = vec({0.0, 0.0});
    QVERIFY(!topicMap(m).ok());
    m.alpha = vec({1.0, std::nan("")});
    QVERIFY(QString::fromStdString(topicMap(m).status().message()).contains("α[1] = nan"));
  }
};

QTEST_APPLESS_MAIN(TestTopicMap)
#include "tst_topic_map.moc"
