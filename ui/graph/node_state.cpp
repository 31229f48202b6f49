#include "ui/graph/node_state.h"

#include "ui/common/palette.h"

namespace dplda {

QString nodeStateName(NodeState state) {
  switch (state) {
    case NodeState::UpToDate: return QStringLiteral("up to date");
    case NodeState::Stale: return QStringLiteral("stale");
    case NodeState::Running: return QStringLiteral("running");
    case NodeState::Failed: return QStringLiteral("failed");
    case NodeState::Idle: return QStringLiteral("idle");
  }
  return QStringLiteral("unknown");
}

QColor nodeStateColor(NodeState state) {
  switch (state) {
    case NodeState::UpToDate: return privateColor();
    case NodeState::Stale: return staleColor();
    case NodeState::Running: return runningColor();
    case NodeState::Failed: return leakColor();
    case NodeState::Idle: return idleColor();
  }
  return idleColor();
}

}  // namespace dplda
