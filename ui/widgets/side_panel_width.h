// A side panel that scrolls vertically only cuts its controls at the right, with no scroll bar to
// reach them, as soon as it is narrower than they need: a fixed width chosen for one font is too
// narrow after View ▸ Zoom, a larger system font or a longer translation (issue #21).
// followContentsWidth keeps such a panel at least as wide as its contents' minimum (plus the
// vertical scroll bar) as fonts and contents change; what the panel declared (its minimum and
// maximum width) holds again when the contents need less.
#pragma once

class QScrollArea;

namespace dpx::ui {

// `area` (widgetResizable, horizontal scroll bar off) never shows its widget narrower than the
// widget's minimumSizeHint. Idempotent; the follower lives as long as `area`.
void followContentsWidth(QScrollArea* area);

// The width `area` needs to show its widget whole with a vertical scroll bar beside it.
int contentsWidthNeeded(const QScrollArea* area);

}  // namespace dpx::ui
