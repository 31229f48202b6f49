#pragma once
// Results tables (ledger, diagnostics) as CSV: the same cells as on screen (a tooltip that holds
// more than an elided cell is preferred), section header rows as a single first cell, written
// through the plots' CSV quoting. A context menu offers "Export CSV…" and "Copy as CSV".
#include <QString>

#include "ui/plots/plot_widget.h"

class QTableWidget;

namespace dplda {

CsvTable tableCsv(const QTableWidget* table);
QString tableCsvText(const QTableWidget* table);
// Writes the table to `path` (UTF-8 CSV); false with a message naming the file otherwise.
bool exportTableCsv(const QTableWidget* table, const QString& path, QString* error = nullptr);
// Adds the context menu; `baseName` is the suggested file name ("ledger").
void addTableExportMenu(QTableWidget* table, const QString& baseName);

}  // namespace dplda
