#pragma once
// Lessons: teaching presets compiled into the app. resources/lessons/NN_name.json holds the
// session settings of a lesson (only what differs from a new session) and its title;
// NN_name.md holds its text (a "# Title" heading, then paragraphs).
//
// LessonController loads a lesson into the session, restores its settings on request ("Reset
// lesson"), and takes the lesson text away when the user leaves the lesson, so that a text
// never describes a session it no longer fits. Leaving means: loading another session or lesson
// (the state is replaced), loading other data (the corpus source or path changes), or "Leave
// lesson". Edits the lessons invite (edges, ε, bounds, N, ...) keep the text.
#include <QObject>
#include <QString>
#include <QStringList>

#include "core/common/status.h"
#include "ui/session/session.h"

class QAction;

namespace dplda {

class SessionModel;

// Names of the compiled-in lessons (":/lessons/<name>.json"), in order.
QStringList lessonNames();
// The lesson's title as the Lessons menu shows it (the JSON's lesson.title, else the name).
QString lessonMenuTitle(const QString& name);
// The session the app loads for a lesson: its JSON settings with the title and text of its .md.
Result<SessionState> lessonSession(const QString& name);
// Whether the lesson pins its first finished ε sweep (its JSON's lesson.pin_first_sweep), so that
// the curve it starts from stays on the plot when the learner changes N or the bounds.
bool lessonPinsFirstSweep(const QString& name);

class LessonController : public QObject {
  Q_OBJECT

 public:
  explicit LessonController(SessionModel* model, QObject* parent = nullptr);

  // Replaces the session by the lesson (no undo step: like opening a session).
  bool load(const QString& name, QString* error = nullptr);
  // Back to the current lesson's settings, as one undoable edit. False when no lesson is shown.
  bool resetLesson(QString* error = nullptr);
  // Removes the lesson text and title from the session (undoable).
  void leaveLesson(const QString& why = QString());
  // The lesson the session shows (matched by title, so saved lesson sessions count), or "".
  QString currentLesson() const;

  QAction* resetAction() const { return m_reset; }  // "Reset lesson", Ctrl+Shift+L
  QAction* leaveAction() const { return m_leave; }

 signals:
  // A lesson was loaded or reset: views should show its text first.
  void lessonShown(const QString& title);

 private:
  void onStateChanged(const SessionState& previous, const SessionState& current);
  void updateActions();

  SessionModel* m_model;
  QAction* m_reset = nullptr;
  QAction* m_leave = nullptr;
  bool m_leaving = false;  // a leave edit is queued
};

}  // namespace dplda
