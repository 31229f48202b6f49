#pragma once
// Headless Qt talks about its environment (no XDG_RUNTIME_DIR, the offscreen platform's missing
// features); that is not the user's business, and errors must stay one clean line on stderr.
// Installs a message handler that drops those notes and Qt's debug/info output and prints every
// other Qt warning as "<program>: qt: <message>".
namespace dplda {

void installQuietQtMessages(const char* program);

}  // namespace dplda
