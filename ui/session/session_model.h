#pragma once
// SessionModel: the one owner of the current SessionState. Every user edit goes through
// edit(), which pushes an undoable command; undo/redo and loading apply states directly.
// Views listen to stateChanged and redraw from state().
#include <QObject>
#include <QUndoStack>

#include "ui/session/session.h"

namespace dplda {

class SessionModel : public QObject {
  Q_OBJECT

 public:
  explicit SessionModel(QObject* parent = nullptr);

  const SessionState& state() const { return m_state; }
  QUndoStack* undoStack() { return &m_undo; }

  // An undoable change described by `text` ("change ε"). Consecutive edits with the same
  // non-negative mergeKey (e.g. dragging the ε slider) merge into one undo step.
  // No-op when nothing changes.
  void edit(const SessionState& next, const QString& text, int mergeKey = -1);
  // Replaces the state without an undo step (loading a session or a lesson clears the stack).
  void reset(const SessionState& next);

  // Used by the undo commands.
  void apply(const SessionState& next);

 signals:
  void stateChanged(const dplda::SessionState& previous, const dplda::SessionState& current);

 private:
  SessionState m_state;
  QUndoStack m_undo;
};

}  // namespace dplda
