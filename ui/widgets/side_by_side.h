// A view's main part (a plot) and its side panel side by side, or the panel under the main part
// when the room the view is shown in (the window's tab, which scrolls) is narrower than both need
// side by side: on a 1024 × 768 screen with the data panel open (wider with a CSV file's
// options), or at a large zoom, the tab would otherwise have to be scrolled sideways (issue #21);
// stacked, the tab scrolls down. Used by the More mechanisms pages (Page::placeBesideSidePanel),
// the Trade-off tab and the Strategy tab.
#pragma once

class QBoxLayout;
class QWidget;

namespace dpx::ui {

// `layout` is `owner`'s top-level box layout with the main part first (stretching) and the side
// panel last (typically a QScrollArea that scrolls vertically only): left to right while the
// room of the nearest enclosing scroll area holds both parts' minimum widths, top to bottom
// otherwise, with a scrolling side panel then as tall as its contents and the main part as tall
// as the view. The watcher lives as long as `owner`.
void sideBySideOrStacked(QWidget* owner, QBoxLayout* layout);

}  // namespace dpx::ui
