// Issue 24 §5: the app shows the mathematics of the core's plain-ASCII privacy texts (σ̃ₖ, Δ₂, ≥,
// →, 1.8×10⁴), and none of the ASCII spellings reaches a panel.
#include <QtTest>

#include "core/privacy/sensitivity.h"
#include "ui/common/privacy_text.h"

using namespace dplda;

class TstPrivacyText : public QObject {
  Q_OBJECT

 private slots:
  void symbolsAndNumbers() {
    QCOMPARE(readablePrivacyText("sigma_k_tilde > Delta2"), QString::fromUtf8("σ̃ₖ > Δ₂"));
    QCOMPARE(readablePrivacyText("N >= 3"), QString::fromUtf8("N ≥ 3"));
    QCOMPARE(readablePrivacyText("M2 -> W, W+ (e2, e5, shared)"), QString::fromUtf8("M2 → W, W⁺ (e2, e5, shared)"));
    QCOMPARE(readablePrivacyText("Delta2 <= sigma_k - sigma_k+1"), QString::fromUtf8("Δ₂ ≤ σₖ - σₖ₊₁"));
    QCOMPARE(readablePrivacyText("N = 1.8e+04, eps 2.5e-05, 1e+10"), QString::fromUtf8("N = 1.8×10⁴, eps 2.5×10⁻⁵, 1×10¹⁰"));
    // Not numbers: words and identifiers keep their letters.
    QCOMPARE(readablePrivacyText("the e2 release, node1e"), QString::fromUtf8("the e2 release, node1e"));
  }

  // Every precondition and formula the core writes for every node, on inputs where each is
  // evaluated: no ASCII mathematics is left for the inspector and the results table.
  void everyCoreTextIsShownWithSymbols() {
    SensitivityInputs in;
    in.docCount = 18000;
    in.topicCount = 5;
    in.alpha0 = 1.0;
    in.sigmaKTilde = 1e-3;
    in.gammaSTilde = 0.2;
    in.gapTilde = 1e-4;
    in.maxLength = 100;
    int texts = 0;
    for (BoundSet bounds : {BoundSet::Sound, BoundSet::Printed})
      for (Node node : {Node::D, Node::M2, Node::M3, Node::W, Node::T, Node::Wplus, Node::TD, Node::U}) {
        const SensitivityBound b = sensitivityOf(node, in, bounds);
        std::vector<std::string> all{b.formula, b.note};
        for (const Precondition& p : b.preconditions) {
          all.push_back(p.name);
          all.push_back(p.detail);
        }
        for (const std::string& text : all) {
          if (text.empty()) continue;
          ++texts;
          const QString shown = readablePrivacyText(text);
          for (const char* ascii : {"sigma_", "Delta", "gap_tilde", ">=", "<=", " -> ", "alpha0", "e+0", "e-0"})
            QVERIFY2(!shown.contains(QLatin1String(ascii)),
                     qPrintable(QString("'%1' left in: %2").arg(QLatin1String(ascii), shown)));
        }
      }
    QVERIFY2(texts > 20, qPrintable(QString::number(texts)));
  }
};

QTEST_GUILESS_MAIN(TstPrivacyText)
#include "tst_privacy_text.moc"
