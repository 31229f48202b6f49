#pragma once
// Internal to ui/session: user text quoted in a message, its control characters escaped
// (core/common/text_escape.h), so that a session file cannot write to the terminal or the log.
#include <QString>

#include "core/common/text_escape.h"

namespace dplda {

inline QString quoted(const QString& text) { return QString::fromStdString(quoteText(text.toStdString())); }

}  // namespace dplda
