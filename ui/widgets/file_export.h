// Saving a view's text export (CSV) through a file dialog: the directory remembered under
// "dir/export", written atomically (QSaveFile), a message box on failure.
#pragma once

#include <QString>

class QWidget;

namespace dpx::ui {

// Asks for a path (default `fileName` in the remembered directory) and writes `text`. Returns
// false if the user cancelled or the write failed (the user was told).
bool saveTextWithDialog(QWidget* parent, const QString& title, const QString& fileName,
                        const QString& text);

}  // namespace dpx::ui
