#include "ui/lessons/lesson_controller.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QKeySequence>
#include <QTimer>

#include "ui/session/session_model.h"

namespace dplda {

QStringList lessonNames() {
  QStringList names;
  for (const QString& f : QDir(":/lessons").entryList({"*.json"}, QDir::Files, QDir::Name))
    names << QFileInfo(f).completeBaseName();
  return names;
}

QString lessonMenuTitle(const QString& name) {
  QFile f(":/lessons/" + name + ".json");
  if (!f.open(QIODevice::ReadOnly)) return name;
  return QJsonDocument::fromJson(f.readAll()).object().value("lesson").toObject().value("title").toString(name);
}

bool lessonPinsFirstSweep(const QString& name) {
  QFile f(":/lessons/" + name + ".json");
  if (!f.open(QIODevice::ReadOnly)) return false;
  return QJsonDocument::fromJson(f.readAll()).object().value("lesson").toObject().value("pin_first_sweep").toBool();
}

Result<SessionState> lessonSession(const QString& name) {
  const QString base = ":/lessons/" + name;
  if (!QFileInfo::exists(base + ".json"))
    return Status(StatusCode::BadInput, QString("no lesson '%1'").arg(name).toStdString());
  auto r = loadSession(base + ".json");
  if (!r.ok()) return r.status();
  SessionState s = r.value();
  QFile md(base + ".md");
  if (md.open(QIODevice::ReadOnly)) {
    QString text = QString::fromUtf8(md.readAll()).trimmed();
    if (text.startsWith("# ")) {  // the first heading is the title
      const int nl = text.indexOf('\n');
      if (s.lessonTitle.isEmpty()) s.lessonTitle = text.mid(2, nl < 0 ? -1 : nl - 2).trimmed();
      text = nl < 0 ? QString() : text.mid(nl + 1).trimmed();
    }
    s.lessonText = text;
  }
  if (s.lessonTitle.isEmpty()) s.lessonTitle = name;
  return s;
}

LessonController::LessonController(SessionModel* model, QObject* parent) : QObject(parent), m_model(model) {
  m_reset = new QAction(tr("&Reset lesson"), this);
  m_reset->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
  m_reset->setToolTip(tr("Restore the lesson's own settings (undoable)"));
  connect(m_reset, &QAction::triggered, this, [this] { resetLesson(); });
  m_leave = new QAction(tr("L&eave lesson"), this);
  m_leave->setToolTip(tr("Keep the settings, remove the lesson text"));
  connect(m_leave, &QAction::triggered, this, [this] { leaveLesson(); });
  connect(m_model, &SessionModel::stateChanged, this, &LessonController::onStateChanged);
  updateActions();
}

bool LessonController::load(const QString& name, QString* error) {
  auto r = lessonSession(name);
  if (!r.ok()) {
    if (error) *error = QString::fromStdString(r.status().message());
    return false;
  }
  m_model->reset(r.value());
  emit lessonShown(r.value().lessonTitle);
  return true;
}

QString LessonController::currentLesson() const {
  const SessionState& s = m_model->state();
  if (s.lessonTitle.isEmpty() && s.lessonText.isEmpty()) return {};
  for (const QString& name : lessonNames()) {
    auto r = lessonSession(name);
    if (r.ok() && r.value().lessonTitle == s.lessonTitle) return name;
  }
  return {};
}

bool LessonController::resetLesson(QString* error) {
  const QString name = currentLesson();
  if (name.isEmpty()) {
    if (error) *error = tr("no lesson is open");
    return false;
  }
  auto r = lessonSession(name);
  if (!r.ok()) {
    if (error) *error = QString::fromStdString(r.status().message());
    return false;
  }
  m_model->edit(r.value(), tr("reset lesson"));
  emit lessonShown(r.value().lessonTitle);
  return true;
}

void LessonController::leaveLesson(const QString& why) {
  SessionState s = m_model->state();
  if (s.lessonTitle.isEmpty() && s.lessonText.isEmpty()) return;
  s.lessonTitle.clear();
  s.lessonText.clear();
  m_model->edit(s, why.isEmpty() ? tr("leave lesson") : tr("leave lesson (%1)").arg(why));
}

void LessonController::onStateChanged(const SessionState& previous, const SessionState& current) {
  updateActions();
  // Only an edit that keeps the lesson but changes the data leaves it; a load replaces the text.
  const bool sameLesson = !current.lessonText.isEmpty() && current.lessonTitle == previous.lessonTitle &&
                          current.lessonText == previous.lessonText;
  const bool otherData = current.source != previous.source || current.corpusPath != previous.corpusPath;
  if (!sameLesson || !otherData || m_leaving) return;
  // Back on the lesson's own data (e.g. undoing "load corpus") is not leaving.
  if (auto lesson = lessonSession(currentLesson()); lesson.ok() && lesson.value().source == current.source &&
                                                     lesson.value().corpusPath == current.corpusPath)
    return;
  // Queued: a second edit from inside stateChanged would reach other views out of order.
  m_leaving = true;
  QTimer::singleShot(0, this, [this] {
    m_leaving = false;
    leaveLesson(tr("other data"));
  });
}

void LessonController::updateActions() {
  const bool on = !m_model->state().lessonText.isEmpty() || !m_model->state().lessonTitle.isEmpty();
  m_reset->setEnabled(on && !currentLesson().isEmpty());  // a compiled-in lesson to go back to
  m_leave->setEnabled(on);
}

}  // namespace dplda
