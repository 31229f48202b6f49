#include "ui/panels/table_export.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QMenu>
#include <QMessageBox>
#include <QSaveFile>
#include <QTableWidget>

#include "ui/common/last_folder.h"

namespace dplda {

QTableWidget* makeResultsTable(const QStringList& header) {
  auto* t = new QTableWidget(0, header.size());
  t->setHorizontalHeaderLabels(header);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->verticalHeader()->hide();
  t->horizontalHeader()->setStretchLastSection(true);
  t->setWordWrap(false);
  return t;
}

void setResultsCell(QTableWidget* t, int row, int col, const QString& text, const QColor& color) {
  auto* item = new QTableWidgetItem(text);
  item->setToolTip(text);
  if (color.isValid()) item->setForeground(color);
  t->setItem(row, col, item);
}

void setResultsCell(QTableWidget* t, int row, int col, const QString& text) { setResultsCell(t, row, col, text, QColor()); }

CsvTable tableCsv(const QTableWidget* table) {
  CsvTable csv;
  for (int c = 0; c < table->columnCount(); ++c) {
    const QTableWidgetItem* h = table->horizontalHeaderItem(c);
    csv.header << (h ? h->text() : QString::number(c + 1));
  }
  for (int r = 0; r < table->rowCount(); ++r) {
    QStringList row;
    for (int c = 0; c < table->columnCount(); ++c) {
      const QTableWidgetItem* item = table->item(r, c);
      // Tooltips hold the whole text of cells that are elided on screen.
      QString text = item ? item->text() : QString();
      if (item && item->toolTip().startsWith(text) && item->toolTip().size() > text.size()) text = item->toolTip();
      row << text;
    }
    csv.rows.append(row);
  }
  return csv;
}

QString tableCsvText(const QTableWidget* table) {
  const CsvTable csv = tableCsv(table);
  auto line = [](const QStringList& cells) {
    QStringList quoted;
    for (const QString& c : cells) quoted << csvField(c);
    return quoted.join(QLatin1Char(',')) + QLatin1Char('\n');
  };
  QString text = line(csv.header);
  for (const QStringList& row : csv.rows) text += line(row);
  return text;
}

bool exportTableCsv(const QTableWidget* table, const QString& path, QString* error) {
  QSaveFile file(path);
  const QByteArray bytes = tableCsvText(table).toUtf8();
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
    if (error)
      *error = QObject::tr("cannot write CSV '%1': %2").arg(QDir::toNativeSeparators(path), file.errorString());
    return false;
  }
  return true;
}

void addTableExportMenu(QTableWidget* table, const QString& baseName) {
  table->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(table, &QWidget::customContextMenuRequested, table, [table, baseName](const QPoint& pos) {
    QMenu menu(table);
    menu.addAction(QObject::tr("Export CSV…"), table, [table, baseName] {
      QString path = QFileDialog::getSaveFileName(table, QObject::tr("Export table as CSV"),
                                                  QDir(lastFolder("export")).filePath(baseName + ".csv"),
                                                  QObject::tr("CSV data (*.csv)"));
      if (path.isEmpty()) return;
      if (QFileInfo(path).suffix().compare("csv", Qt::CaseInsensitive) != 0) path += ".csv";
      rememberFolder("export", path);
      QString error;
      if (!exportTableCsv(table, path, &error)) QMessageBox::warning(table, QObject::tr("Export failed"), error);
    });
    menu.addAction(QObject::tr("Copy as CSV"), table, [table] {
      if (QClipboard* clipboard = QApplication::clipboard()) clipboard->setText(tableCsvText(table));
    });
    for (QAction* a : menu.actions()) a->setEnabled(table->rowCount() > 0);
    menu.exec(table->viewport()->mapToGlobal(pos));
  });
}

}  // namespace dplda
