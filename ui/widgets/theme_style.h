// The application's style (issue #21): Fusion, with check box and radio button indicators that
// can be seen. Fusion outlines them in the window colour made darker, about 2:1 against a light
// window and 1.1:1 against the dark theme's (there it also fills them with the base colour, a few
// steps from the window's): unchecked radio buttons were nearly invisible on the dark theme (the
// differencing lesson's ε choices, the Errors tab's counts / frequencies) and pale on the
// presentation's white. This style outlines them in a grey 45 % of the way from the window colour
// to its text, at least 3:1 against the window (WCAG 2.1, 1.4.11 non-text contrast), and draws
// them as large as the text beside them needs (a lesson's large type in presentation mode, View ▸
// Zoom) instead of at one size for every font; likewise a spin box's up and down buttons and their
// arrows (8 px in Fusion, whatever the font: specks beside a presented lesson's type).
#pragma once

class QStyle;

namespace dpx::ui {

// A new Fusion style with those indicators (qApp->setStyle takes ownership).
QStyle* createApplicationStyle();

}  // namespace dpx::ui
