// The moment passes over a streamed corpus (issue 27 §4: counts read in place from the binary
// cache, block by block) give the same bits as over the resident corpus, with blocks so small that
// every lane of every pass is cut into many of them: the documents are summed in the same order.
#include <algorithm>
#include <QtTest>
#include <omp.h>
#include <cstring>
#include <filesystem>
#include <memory>

#include "core/corpus/corpus_cache.h"
#include "core/corpus/synthetic_generator.h"
#include "core/corpus/uci_io.h"
#include "core/moments/clipped_moments.h"
#include "core/moments/moments.h"
#include "core/moments/second_moment_columns.h"
#include "core/pipeline/spectral_pipeline.h"

using namespace dplda;
namespace fs = std::filesystem;

namespace {

bool sameBits(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

bool sameBits(const Tensor3& a, const Tensor3& b) {
  return a.dim() == b.dim() && std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0;
}

Eigen::MatrixXd fixedMatrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
  std::srand(seed);
  return Eigen::MatrixXd::Random(rows, cols);
}

// M̂2 from its columns (the whitened release's formation), the lower triangle mirrored.
Eigen::MatrixXd fromColumns(const SecondMomentOperator& op) {
  const Eigen::Index d = op.rows();
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(d, d);
  SecondMomentColumns(op).withColumns([&](const SecondMomentColumns::AddColumn& add) {
    for (Eigen::Index c = 0; c < d; ++c) add(c, m.col(c).data() + c);
  });
  return m.selfadjointView<Eigen::Lower>();
}

}  // namespace

class TestStreamedMoments : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_tmp;

  // The same corpus resident and streamed (blocks of `blockEntries` entries).
  std::pair<std::shared_ptr<Corpus>, std::shared_ptr<Corpus>> corpora(int docs, int vocab, double length,
                                                                      Eigen::Index blockEntries, const std::string& name) {
    GeneratorParams p;
    p.vocabSize = vocab;
    p.docCount = docs;
    p.meanLength = length;
    p.topicCount = 4;
    p.seed = 3;
    const auto gen = generateLdaCorpus(p);
    if (!gen.ok()) qFatal("generate failed");
    const fs::path dir = fs::path(m_tmp.path().toStdString()) / name;
    if (!writeUciCorpus(gen->corpus, dir.string()).isOk()) qFatal("write failed");
    CorpusCacheOptions o;
    auto resident = std::make_shared<Corpus>(loadUciCorpus(dir.string(), o).value());  // writes the cache
    o.stream = true;
    auto streamed = std::make_shared<Corpus>(loadUciCorpus(dir.string(), o).value());
    if (!streamed->streamed() || resident->streamed()) qFatal("not streamed");
    auto m = std::make_shared<MappedCounts>(*streamed->mapped);
    m->blockEntries = blockEntries;
    streamed->mapped = std::move(m);
    return {resident, streamed};
  }

 private slots:
  void initTestCase() { QVERIFY(m_tmp.isValid()); }

  // A streamed corpus is packed in blocks of 8 192 documents on the threads: 20 000 documents
  // (three blocks) give the resident corpus's copy, on one thread and on several.
  void packingInBlocksGivesTheSameCopy() {
    const auto [r, s] = corpora(20000, 40, 10, 41, "packing");
    const SecondMomentOperator opR(*r, 1.0), opS(*s, 1.0);
    const PackedCounts packedR = opR.packCounts(0);
    QVERIFY(packedR.size() == static_cast<std::size_t>(r->nnz()));
    const int threads = omp_get_max_threads();
    for (int n : {1, std::max(2, threads)}) {
      omp_set_num_threads(n);
      const PackedCounts packedS = opS.packCounts(0);
      QVERIFY(packedS.size() == packedR.size() &&
              std::equal(packedS.data(), packedS.data() + packedS.size(), packedR.data()));
    }
    omp_set_num_threads(threads);
  }

  void everyPassGivesTheSameBits() {
    const auto [r, s] = corpora(3000, 40, 30, 37, "small");
    const double alpha0 = 0.7;
    QVERIFY(sameBits(firstMoment(*r), firstMoment(*s)));
    const SecondMomentOperator opR(*r, alpha0), opS(*s, alpha0);
    QVERIFY(opR.packCounts(0).size() == static_cast<std::size_t>(r->nnz()));
    // A streamed corpus is packed from one read of its mapping: the same copy, the same products.
    const PackedCounts packedS = opS.packCounts(0), packedR = opR.packCounts(0);
    QVERIFY(packedS.size() == packedR.size() &&
            std::equal(packedS.data(), packedS.data() + packedS.size(), packedR.data()));
    const Eigen::VectorXd x = fixedMatrix(40, 1, 1);
    Eigen::VectorXd yR(40), yS(40), yP(40);
    opR.perform_op(x.data(), yR.data());
    opS.perform_op(x.data(), yS.data());
    opR.perform_op(x.data(), yP.data(), opR.packCounts(0));
    QVERIFY(sameBits(yR, yS));
    QVERIFY(sameBits(yP, yS));
    const Eigen::MatrixXd X = fixedMatrix(40, 7, 2);
    QVERIFY(sameBits(opR.apply(X), opS.apply(X)));
    QVERIFY(sameBits(opS.apply(X, opS.packCounts(0)), opS.apply(X)));
    Eigen::VectorXd yQ(40);
    opS.perform_op(x.data(), yQ.data(), opS.packCounts(0));
    QVERIFY(sameBits(yQ, yS));
    QVERIFY(sameBits(opR.toDense().value(), opS.toDense().value()));
    // Column by column: the dense M̂2 to rounding, the same bits from either storage.
    const Eigen::MatrixXd columns = fromColumns(opR);
    QVERIFY((columns - opR.toDense().value()).cwiseAbs().maxCoeff() <= 1e-13 * columns.cwiseAbs().maxCoeff());
    QVERIFY(sameBits(columns, fromColumns(opS)));
    const Eigen::MatrixXd W = fixedMatrix(40, 4, 3);
    QVERIFY(sameBits(whitenedThirdMoment(*r, alpha0, W).value(), whitenedThirdMoment(*s, alpha0, W).value()));
    QVERIFY(sameBits(thirdMomentDense(*r, alpha0).value(), thirdMomentDense(*s, alpha0).value()));
    QVERIFY(sameBits(thirdMomentExplicit(*r, alpha0).value(), thirdMomentExplicit(*s, alpha0).value()));
  }

  void clippedPassesGiveTheSameBits() {
    const auto [r, s] = corpora(2000, 30, 12, 29, "clipped");
    const double alpha0 = 1.0;
    MomentClip clip;
    clip.enabled = true;
    clip.m1 = 0.3;
    clip.m2 = 0.1;
    clip.m3 = 0.05;
    const auto scR = clippedMomentScales(*r, clip).value(), scS = clippedMomentScales(*s, clip).value();
    QVERIFY(sameBits(scR.scales.m3, scS.scales.m3));
    QVERIFY(scS.fractionClippedM3 > 0.0);  // the bounds clip something
    // The clipped M̂2ᶜ column by column (the whitened release): its operator's dense form.
    const SecondMomentOperator clippedR(*r, alpha0, &scR.scales), clippedS(*s, alpha0, &scS.scales);
    const Eigen::MatrixXd columns = fromColumns(clippedR);
    QVERIFY((columns - clippedR.toDense().value()).cwiseAbs().maxCoeff() <= 1e-13 * columns.cwiseAbs().maxCoeff());
    QVERIFY((columns - SecondMomentOperator(*r, alpha0).toDense().value()).cwiseAbs().maxCoeff() > 1e-3 * columns.cwiseAbs().maxCoeff());
    QVERIFY(sameBits(columns, fromColumns(clippedS)));
    const Eigen::MatrixXd W = fixedMatrix(30, 3, 4);
    QVERIFY(sameBits(whitenedThirdMoment(*r, alpha0, W, nullptr, &scR.scales).value(),
                     whitenedThirdMoment(*s, alpha0, W, nullptr, &scS.scales).value()));
    const auto tR = clippedWhitenedThirdMoment(*r, alpha0, W, 0.5).value();
    const auto tS = clippedWhitenedThirdMoment(*s, alpha0, W, 0.5).value();
    QVERIFY(sameBits(tR.tensor, tS.tensor));
    QCOMPARE(tR.fractionClippedT, tS.fractionClippedT);
  }

  void theFitGivesTheSameBits() {
    // d above the dense eigen limit: the block eigensolver's products over the operator, which
    // read a packed copy of the resident counts and the streamed corpus's mapping.
    const auto [r, s] = corpora(1500, 1200, 60, 1000, "fit");
    SpectralOptions o;
    o.topicCount = 4;
    o.alpha0 = 1.0;
    SpectralPipeline pr, ps;
    pr.setCorpus(r);
    pr.setOptions(o);
    ps.setCorpus(s);
    ps.setOptions(o);
    const auto mr = pr.run(), ms = ps.run();
    QVERIFY2(mr.ok(), mr.status().toString().c_str());
    QVERIFY2(ms.ok(), ms.status().toString().c_str());
    QVERIFY(sameBits(mr->eigen.values, ms->eigen.values));
    QVERIFY(sameBits(mr->tensor, ms->tensor));
    QVERIFY(sameBits(mr->output.topics, ms->output.topics));
    QVERIFY(sameBits(mr->output.alpha, ms->output.alpha));
  }
};

QTEST_GUILESS_MAIN(TestStreamedMoments)
#include "tst_streamed_moments.moc"
