#include "ui/release/known_ledgers.h"

#include <QFileInfo>
#include <QSettings>

namespace dpx::ui {

namespace {
const QString kKey = QStringLiteral("ledgers/known");

QString canonical(const QString& path) {
    const QFileInfo info(path);
    const QString c = info.canonicalFilePath();
    return c.isEmpty() ? info.absoluteFilePath() : c;
}
}  // namespace

QStringList knownLedgers() {
    return QSettings().value(kKey).toStringList();
}

void rememberLedger(const QString& path) {
    if (path.isEmpty()) {
        return;
    }
    const QString p = QFileInfo(path).absoluteFilePath();
    QSettings settings;
    QStringList list = settings.value(kKey).toStringList();
    list.removeAll(p);
    list.prepend(p);
    while (list.size() > kMaxKnownLedgers) {
        list.removeLast();
    }
    settings.setValue(kKey, list);
}

bool sameLedgerFile(const QString& a, const QString& b) {
    return canonical(a) == canonical(b);
}

std::vector<KnownLedger> ledgersOfDataset(const QStringList& paths, const std::string& dataset,
                                          const QString& exclude) {
    std::vector<KnownLedger> out;
    for (const QString& p : paths) {
        if ((!exclude.isEmpty() && sameLedgerFile(p, exclude)) || !QFileInfo(p).isFile()) {
            continue;
        }
        auto l = data::PrivacyLedger::load(p.toStdString());
        if (l && l->dataset() == dataset) {
            out.push_back({p, std::move(l).value()});
        }
    }
    return out;
}

}  // namespace dpx::ui
