#pragma once
// Results tables (ledger, diagnostics) as CSV: the same cells as on screen (a tooltip that holds
// more than an elided cell is preferred), section header rows as a single first cell, written
// through the plots' CSV quoting. A context menu offers "Export CSV…" and "Copy as CSV".
#include <QString>

#include "ui/plots/plot_widget.h"

class QTableWidget;

class QColor;

namespace dplda {

// A read-only results table with these column headers (rows selected whole, no row numbers, the
// last column stretched), and a cell whose tooltip holds its whole text.
QTableWidget* makeResultsTable(const QStringList& header);
void setResultsCell(QTableWidget* table, int row, int col, const QString& text, const QColor& color);
void setResultsCell(QTableWidget* table, int row, int col, const QString& text);

CsvTable tableCsv(const QTableWidget* table);
QString tableCsvText(const QTableWidget* table);
// Writes the table to `path` (UTF-8 CSV); false with a message naming the file otherwise.
bool exportTableCsv(const QTableWidget* table, const QString& path, QString* error = nullptr);
// Adds the context menu; `baseName` is the suggested file name ("ledger").
void addTableExportMenu(QTableWidget* table, const QString& baseName);

}  // namespace dplda
