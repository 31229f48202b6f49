#pragma once
// The private vocabulary selections the app has released from the user's texts (docs/PRIVACY.md
// §13.5). A selection is a release: drawing a new one each time a text is imported again (a run
// after reopening the session, a change of d and back, the Audit tab's own import) would be a new
// release each time while every ledger counts (ε_v, δ_v) once. So the first selection for an
// import (the text file and every import option: corpusKey) is kept, and every later import of
// it takes the same words: reusing a released output is post-processing, one release in all.
//
// Kept in one JSON file in the app's data folder (QStandardPaths::AppDataLocation), written
// atomically as soon as a selection is drawn: it survives an unsaved session, undo and a restart.
// The words are released values (public once released); nothing else about the text is stored.
// Thread-safe: the run worker and the audit job import on their own threads.
#include <QString>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"
#include "core/corpus/text_import.h"
#include "ui/session/session.h"

namespace dplda {

// The file; DPLDA_RELEASED_VOCABULARIES overrides it (tests, or a store shared between users).
QString releasedVocabulariesPath();

// A session's text imported with its released vocabulary: the selection recorded for this import
// when there is one (no new draw), else the one the session file carries (SessionState::
// releasedSelection) when it was released with the same import options (the text may have moved;
// reusing released words is post-processing, and conservative for any other text), recorded in turn;
// else a new selection, recorded before the corpus is returned.
// `note` says which, and, when this text has had more than one selection (d or the options
// changed), how much all of them spend together.
Result<Corpus> importSessionText(const SessionState& s, TextImportReport* report, Feedback* fb, QString* note);

// The session as its file keeps it: releasedSelection = the record of the selection released for
// its import (with textImportOptionsKey as "options"), else the selection it carries when that
// was released with its import options, else empty (no private selection, or none drawn yet).
SessionState withRecordedSelection(SessionState s);

// How many selections are recorded for the text file `path` (any options).
int releasedSelectionCount(const QString& path);

}  // namespace dplda
