// `cmake --install` into a temporary prefix (issue 26 §5): the three programs in bin/, the desktop
// entry, icon and AppStream metainfo in share/, man pages generated from --help; the installed
// programs run from there (dplda finds dplda-sweep beside it), and the desktop and metainfo files
// pass desktop-file-validate and appstreamcli validate when those tools are installed
// (scripts/setup.sh installs them).
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Outcome {
  int code;
  QString out;
};

Outcome runProgram(const QString& program, const QStringList& args, int timeoutMs = 120000) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(program, args);
  if (!p.waitForFinished(timeoutMs)) return {-1, program + " did not finish: " + p.errorString()};
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, QString::fromUtf8(p.readAll())};
}

}  // namespace

class TestInstall : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_prefix;
  QString file(const QString& rel) const { return m_prefix.filePath(rel); }

 private slots:
  void initTestCase() {
    QVERIFY(m_prefix.isValid());
    const QString cmake = qEnvironmentVariable("DPLDA_CMAKE");
    const QString build = qEnvironmentVariable("DPLDA_BUILD_DIR");
    QVERIFY2(!cmake.isEmpty() && !build.isEmpty(), "run through ctest (DPLDA_CMAKE, DPLDA_BUILD_DIR)");
    const Outcome r = runProgram(cmake, {"--install", build, "--prefix", m_prefix.path()});
    QVERIFY2(r.code == 0, qPrintable("cmake --install failed (build every target first):\n" + r.out));
  }

  void filesAreWhereDesktopsLook() {
    const QString id = "io.github.dplda.Explorer";
    for (const QString& rel : {QString("bin/dplda"), QString("bin/dplda-sweep"), QString("bin/dplda-explorer")}) {
      QVERIFY2(QFileInfo(file(rel)).isExecutable(), qPrintable(rel + " is not installed as a program"));
    }
    for (const QString& rel : {"share/applications/" + id + ".desktop", "share/icons/hicolor/scalable/apps/" + id + ".svg",
                               "share/metainfo/" + id + ".metainfo.xml", QString("share/man/man1/dplda.1.gz"),
                               QString("share/man/man1/dplda-sweep.1.gz"), QString("share/man/man1/dplda-explorer.1.gz")}) {
      QVERIFY2(QFileInfo(file(rel)).isFile() && QFileInfo(file(rel)).size() > 0, qPrintable(rel + " is missing"));
    }
    // The entry starts the installed program, and names the installed icon.
    QFile desktop(file("share/applications/" + id + ".desktop"));
    QVERIFY(desktop.open(QIODevice::ReadOnly));
    const QString entry = QString::fromUtf8(desktop.readAll());
    QVERIFY(entry.contains("\nExec=dplda-explorer"));
    QVERIFY(entry.contains("\nIcon=" + id + "\n"));
  }

  void installedProgramsRun() {
    const Outcome help = runProgram(file("bin/dplda"), {"--help"});
    QCOMPARE(help.code, 0);
    QVERIFY2(help.out.contains("dplda import-text --input PATH"), qPrintable(help.out));
    // `dplda sweep` hands over to the dplda-sweep installed beside it: its usage error, not
    // "cannot start the sweep program".
    const Outcome sweep = runProgram(file("bin/dplda"), {"sweep", "--preset", "no-such-preset", "--out", m_prefix.filePath("s")});
    QCOMPARE(sweep.code, 2);
    QVERIFY2(!sweep.out.contains("cannot start the sweep program") && sweep.out.contains("no-such-preset"),
             qPrintable(sweep.out));
    QProcess explorer;
    explorer.setProcessEnvironment([] {
      auto env = QProcessEnvironment::systemEnvironment();
      env.insert("QT_QPA_PLATFORM", "offscreen");
      return env;
    }());
    explorer.start(file("bin/dplda-explorer"), {"--version"});
    QVERIFY(explorer.waitForFinished(60000));
    QCOMPARE(explorer.exitCode(), 0);
    QVERIFY(QString::fromUtf8(explorer.readAllStandardOutput()).contains("0.1.0"));
  }

  void manPagesComeFromTheHelp() {
    const Outcome page = runProgram("gzip", {"-dc", file("share/man/man1/dplda.1.gz")});
    if (page.code == -1) QSKIP("gzip is not installed");
    QCOMPARE(page.code, 0);
    QVERIFY2(page.out.startsWith(".TH DPLDA 1"), qPrintable(page.out.left(200)));
    QVERIFY(page.out.contains("dplda import\\-text \\-\\-input PATH"));  // the help text, hyphens escaped
    const Outcome explorer = runProgram("gzip", {"-dc", file("share/man/man1/dplda-explorer.1.gz")});
    QVERIFY(explorer.out.contains("\\-\\-screenshot"));
    const Outcome sweep = runProgram("gzip", {"-dc", file("share/man/man1/dplda-sweep.1.gz")});
    QCOMPARE(sweep.out, QString(".so man1/dplda.1\n"));
  }

  void validatorsAccept() {
    const QString id = "io.github.dplda.Explorer";
    const QString desktopValidate = QStandardPaths::findExecutable("desktop-file-validate");
    const QString appstream = QStandardPaths::findExecutable("appstreamcli");
    if (desktopValidate.isEmpty() && appstream.isEmpty()) QSKIP("desktop-file-utils and appstream are not installed");
    if (!desktopValidate.isEmpty()) {
      const Outcome r = runProgram(desktopValidate, {file("share/applications/" + id + ".desktop")});
      QVERIFY2(r.code == 0 && r.out.trimmed().isEmpty(), qPrintable(r.out));
    }
    if (!appstream.isEmpty()) {
      const Outcome r = runProgram(appstream, {"validate", "--no-net", file("share/metainfo/" + id + ".metainfo.xml")});
      QVERIFY2(r.code == 0, qPrintable(r.out));
    }
  }
};

QTEST_GUILESS_MAIN(TestInstall)
#include "tst_install.moc"
