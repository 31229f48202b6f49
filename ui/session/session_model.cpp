#include "ui/session/session_model.h"

#include <QUndoCommand>

namespace dplda {

namespace {

class EditCommand : public QUndoCommand {
 public:
  EditCommand(SessionModel* model, SessionState before, SessionState after, const QString& text, int mergeKey)
      : QUndoCommand(text), m_model(model), m_before(std::move(before)), m_after(std::move(after)), m_key(mergeKey) {}
  void undo() override { m_model->apply(m_before); }
  void redo() override { m_model->apply(m_after); }
  int id() const override { return m_key; }
  bool mergeWith(const QUndoCommand* other) override {
    const auto* o = static_cast<const EditCommand*>(other);
    if (o->m_key != m_key || m_key < 0) return false;
    m_after = o->m_after;
    return true;
  }

 private:
  SessionModel* m_model;
  SessionState m_before, m_after;
  int m_key;
};

}  // namespace

SessionModel::SessionModel(QObject* parent) : QObject(parent) { m_undo.setUndoLimit(200); }

void SessionModel::edit(const SessionState& next, const QString& text, int mergeKey) {
  if (next == m_state) return;
  m_undo.push(new EditCommand(this, m_state, next, text, mergeKey));  // push() calls redo()
}

void SessionModel::reset(const SessionState& next) {
  m_undo.clear();
  apply(next);
}

void SessionModel::apply(const SessionState& next) {
  const SessionState previous = m_state;
  m_state = next;
  emit stateChanged(previous, m_state);
}

}  // namespace dplda
