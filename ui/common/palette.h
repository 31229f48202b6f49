#pragma once
// Colour-blind-safe styling shared by plots and the graph canvas. Series differ by colour
// (Okabe–Ito), line style and marker shape, so no reading depends on colour alone.
#include <QBrush>
#include <QColor>
#include <QPen>

#include <qcustomplot.h>

namespace dplda {

// The eight Okabe–Ito colours (Okabe & Ito, "Color Universal Design", 2008).
namespace okabe_ito {
inline const QColor kBlack{0x00, 0x00, 0x00};
inline const QColor kOrange{0xE6, 0x9F, 0x00};
inline const QColor kSkyBlue{0x56, 0xB4, 0xE9};
inline const QColor kBluishGreen{0x00, 0x9E, 0x73};
inline const QColor kYellow{0xF0, 0xE4, 0x42};
inline const QColor kBlue{0x00, 0x72, 0xB2};
inline const QColor kVermillion{0xD5, 0x5E, 0x00};
inline const QColor kReddishPurple{0xCC, 0x79, 0xA7};
}  // namespace okabe_ito

// Number of distinct series colours before the cycle repeats.
inline constexpr int kSeriesColorCount = 8;
inline constexpr int kSeriesLineStyleCount = 5;
inline constexpr int kSeriesShapeCount = 7;

// Colour of series i (i >= 0; negative i is treated as 0). Yellow comes last: it is the
// weakest on white.
QColor seriesColor(int i);
// Line style of series i: solid, dash, dot, dash-dot, dash-dot-dot, cycling.
Qt::PenStyle seriesLineStyle(int i);
// A pen combining colour and line style of series i.
QPen seriesPen(int i, double width = 2.0);
// A translucent fill in series i's colour (for confidence bands), alpha in [0, 255].
QBrush seriesFill(int i, int alpha = 60);
// Marker shape of series i: circle, square, triangle, diamond, cross, plus, inverted triangle.
QCPScatterStyle::ScatterShape seriesShape(int i);
// A marker in series i's colour, filled white so overlapping markers stay readable.
QCPScatterStyle seriesScatter(int i, double size = 7.0);

// The style index whose colour, line style and marker are colours[colour], lines[line] and
// shapes[shape] of the cycles above (8, 5 and 7 are coprime: every triple has one index < 280).
int seriesStyleIndex(int colour, int line, int shape);

// The one style of an experiment configuration wherever it is drawn (the app's sweeps, pinned
// sweeps, every preset's figures on the command line), from its label: the colour names the
// configuration (1 blue, 2 orange, 3 bluish green, 4 vermillion, the whitened release reddish
// purple, input sky blue, the variational baselines yellow), line and marker the variant (plain:
// solid, circle; /gdp: dash, square; /clip: dot, triangle; /clip/gdp: dash-dot, diamond; /raw:
// dash-dot-dot, inverted triangle; /tpm: dash, plus). Black dashed stays the non-private
// baseline's; "none" is black solid. Unknown labels get styles after the table's, by `order`.
int configurationStyle(const QString& label, int order = 0);

// Semantic colours: the same meaning everywhere in the app.
QColor privateColor();   // bluish green: the configuration is private / up to date
QColor leakColor();      // vermillion: not private, leaking path, failures
QColor cautionColor();   // yellow (with black text): a cut that is not a proven guarantee
QColor cautionTint();    // pale yellow (with black text): cautions (δ ≥ 1/N, a very large ε)
QColor noiseColor();     // orange: a noisy edge
QColor runningColor();   // blue: computing
QColor staleColor();     // dark yellow-brown: stale results (never shown as current)
QColor idleColor();      // grey: nothing computed yet
QColor baselineColor();  // black: reference lines (e.g. the non-private baseline)

}  // namespace dplda
