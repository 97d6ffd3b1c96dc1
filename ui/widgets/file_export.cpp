#include "ui/widgets/file_export.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QSaveFile>
#include <QSettings>
#include <QWidget>

namespace dpx::ui {

bool saveTextWithDialog(QWidget* parent, const QString& title, const QString& fileName,
                        const QString& text) {
    QSettings settings;
    const QString path = QFileDialog::getSaveFileName(
        parent, title,
        settings.value(QStringLiteral("dir/export")).toString() + QLatin1Char('/') + fileName,
        QObject::tr("CSV (*.csv)"));
    if (path.isEmpty()) {
        return false;
    }
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Text) || f.write(text.toUtf8()) < 0 ||
        !f.commit()) {
        QMessageBox::warning(parent, QObject::tr("Export failed"),
                             QObject::tr("Cannot write %1: %2").arg(path, f.errorString()));
        return false;
    }
    settings.setValue(QStringLiteral("dir/export"), QFileInfo(path).absolutePath());
    return true;
}

}  // namespace dpx::ui
