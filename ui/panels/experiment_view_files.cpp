// The Sweeps tab's files: saving the shown experiment's folder, opening a sweep folder from disk.
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>

#include "core/common/safe_file.h"
#include "core/experiments/sweep_archive.h"
#include "ui/panels/experiment_view.h"
#include "ui/worker/run_worker.h"

namespace dplda {

namespace {

const QString& kSession = kSessionSweepSource;
const QString& kOpenedPrefix = kOpenedSweepPrefix;

}  // namespace

bool ExperimentView::openSweepFolder(const QString& path, QString* error) {
  const QFileInfo info(path);
  const QString dir = info.isDir() ? info.absoluteFilePath() : info.absolutePath();
  const QString file = info.isDir() ? QDir(dir).filePath(kSweepArchiveName) : info.absoluteFilePath();
  if (info.isDir() && !QFileInfo::exists(file)) {
    if (error)
      *error =
          tr("%1 holds no %2: open the folder of an ε sweep that `dplda sweep` or Save… wrote (tpm-noise, "
             "online-tpm and dp-tpm folders have their report and tables only)")
              .arg(dir, QString::fromStdString(kSweepArchiveName));
    return false;
  }
  auto archive = readSweepArchive(file.toStdString());
  if (!archive.ok()) {
    if (error) *error = QString::fromStdString(archive.status().message());
    return false;
  }
  SweepArchive& a = archive.value();
  auto run = std::make_shared<ExperimentRun>();
  run->preset.name = a.name;
  run->preset.title = a.title;
  run->preset.description = a.description;
  run->preset.kind = a.kind;
  run->preset.sweep = a.result.spec;
  run->sweep = std::make_shared<const SweepResult>(std::move(a.result));
  run->finished = true;
  auto u = std::make_shared<ExperimentUpdate>();
  u->source = kOpenedPrefix + dir;
  u->run = run;
  u->pointsDone = u->pointsTotal = static_cast<int>(run->sweep->summary.size());
  u->commandLine = QString::fromStdString(a.commandLine);
  u->seedNote = QString::fromStdString(a.seedNote);
  if (m_sourceCombo->findData(u->source) < 0) {
    m_sourceCombo->addItem(tr("opened: %1 — %2").arg(QDir(dir).dirName(), QString::fromStdString(a.title)),
                           u->source);
    m_sourceCombo->setItemData(m_sourceCombo->count() - 1,
                               tr("%1\n%2").arg(dir, QString::fromStdString(a.description)), Qt::ToolTipRole);
  }
  m_latest.insert(u->source, u);  // a second opening reads the folder again
  m_figureKey.clear();
  if (!setSource(u->source) || source() == u->source) refresh();
  return true;
}

bool ExperimentView::saveShown(const QString& dir, QString* error) {
  const auto u = shownUpdate();
  if (!u || !u->run || !u->run->finished) {
    if (error) *error = tr("Nothing finished to save: run the experiment and wait for it to finish.");
    return false;
  }
  ReportContext context;
  context.title = u->run->preset.title;
  context.description = u->run->preset.description;
  context.procedureOneTable = u->run->preset.kind == ExperimentKind::Diagnostics;
  context.errorVsN = u->run->preset.kind == ExperimentKind::ErrorVsN;
  if (u->source.startsWith(kOpenedPrefix)) {  // as the folder it was opened from said
    context.commandLine = u->commandLine.toStdString();
    context.seedNote = u->seedNote.toStdString();
  } else if (u->commandLine.isEmpty()) {
    context.commandLine = "dplda-explorer: the session's epsilon sweep (its settings are in session.json)";
    const SweepSpec& s = u->run->sweep->spec;
    context.seedNote = "noise base seed " + std::to_string(s.seeds.noise) + " (trial t uses deriveSeed(base, t)), "
                       "decomposer seed " + std::to_string(s.seeds.init) + "; the corpus is the session's";
  } else {
    context.commandLine = QString(u->commandLine).replace("DIR", dir).toStdString();
    context.seedNote = "all seeds derived from --seed (see the command line)";
  }
  std::vector<std::string> warnings;
  auto written = writeExperimentFolder(*u->run, dir.toStdString(),
                                       {ExportFormat::Png, ExportFormat::Pdf, ExportFormat::Svg}, context, &warnings);
  if (!written.ok()) {
    if (error) *error = QString::fromStdString(written.status().message());
    return false;
  }
  if (u->source == kSession && !m_sessionMeta.isEmpty()) {
    const QByteArray bytes = QJsonDocument(m_sessionMeta).toJson();
    const Status saved = writeFileAtomically(QDir(dir).filePath("session.json").toStdString(),
                                             std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    if (!saved.isOk()) {
      if (error) *error = QString::fromStdString(saved.message());
      return false;
    }
  }
  emit message(tr("Saved %1%2")
                   .arg(QString::fromStdString(written->string()),
                        warnings.empty() ? QString() : tr(" (%1 figure files failed)").arg(warnings.size())),
               !warnings.empty());
  return true;
}

}  // namespace dplda
