#pragma once
// Building an ExperimentFigure around one plot class P: create() makes a P, fill() checks that
// it was given a P and draws into it. Shared by the figure builders of every experiment kind.
#include <QObject>
#include <functional>
#include <memory>

#include "ui/experiments/experiment_output.h"

namespace dplda {

template <class P>
ExperimentFigure makeFigure(QString key, QString title, QString heading, std::function<bool(P&, QString*)> fill,
                            bool errorCurves = false) {
  ExperimentFigure f;
  f.key = std::move(key);
  f.title = std::move(title);
  f.heading = std::move(heading);
  f.create = [] { return std::make_unique<P>(); };
  f.plotType = &P::staticMetaObject;
  f.fill = [fill = std::move(fill)](PlotWidget& plot, QString* error) {
    auto* p = qobject_cast<P*>(&plot);
    if (!p) {
      if (error) *error = QObject::tr("the figure was given a plot of another kind");
      return false;
    }
    return fill(*p, error);
  };
  f.errorCurves = errorCurves;
  return f;
}

}  // namespace dplda
