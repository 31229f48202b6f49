#pragma once
// Keeps a window honest about unsaved work: its title shows "*" (windowModified) while the
// undo stack is not at its clean state, and closing it then asks Save / Discard / Cancel.
#include <QObject>
#include <functional>

class QUndoStack;
class QWidget;

namespace dplda {

class UnsavedChangesGuard : public QObject {
  Q_OBJECT

 public:
  // `save` saves the session (asking for a file name when it has none) and returns whether it
  // did; the window's title must contain the "[*]" placeholder.
  UnsavedChangesGuard(QWidget* window, QUndoStack* stack, std::function<bool()> save);

  bool hasUnsavedChanges() const;
  // Asks Save / Discard / Cancel when there are unsaved changes; true when the caller may go on
  // (saved, discarded, or nothing to lose).
  bool confirm(const QString& action);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QWidget* m_window;
  QUndoStack* m_stack;
  std::function<bool()> m_save;
};

}  // namespace dplda
