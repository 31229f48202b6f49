#pragma once
// The computation state of a graph node as shown on the canvas (and in other panels).
#include <QColor>
#include <QString>

namespace dplda {

enum class NodeState { UpToDate, Stale, Running, Failed, Idle };

QString nodeStateName(NodeState state);  // "up to date", "stale", "running", "failed", "idle"
QColor nodeStateColor(NodeState state);

}  // namespace dplda
