#include "ui/window/unsaved_changes_guard.h"

#include <QCloseEvent>
#include <QMessageBox>
#include <QUndoStack>
#include <QWidget>

namespace dplda {

UnsavedChangesGuard::UnsavedChangesGuard(QWidget* window, QUndoStack* stack, std::function<bool()> save)
    : QObject(window), m_window(window), m_stack(stack), m_save(std::move(save)) {
  window->installEventFilter(this);
  connect(stack, &QUndoStack::cleanChanged, window, [window](bool clean) { window->setWindowModified(!clean); });
  window->setWindowModified(!stack->isClean());
}

bool UnsavedChangesGuard::hasUnsavedChanges() const { return !m_stack->isClean(); }

bool UnsavedChangesGuard::confirm(const QString& action) {
  if (!hasUnsavedChanges()) return true;
  QMessageBox box(QMessageBox::Warning, m_window->windowTitle().remove(QStringLiteral("[*]")),
                  tr("The session has unsaved changes."), QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel,
                  m_window);
  box.setInformativeText(tr("Save them before you %1?").arg(action));
  box.setDefaultButton(QMessageBox::Save);
  box.setEscapeButton(QMessageBox::Cancel);
  switch (box.exec()) {
    case QMessageBox::Save: return m_save();  // a cancelled "Save as" keeps the window open
    case QMessageBox::Discard: return true;
    default: return false;
  }
}

bool UnsavedChangesGuard::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_window && event->type() == QEvent::Close && !confirm(tr("quit"))) {
    event->ignore();
    return true;
  }
  return QObject::eventFilter(watched, event);
}

}  // namespace dplda
