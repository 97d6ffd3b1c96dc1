// The privacy ledgers this installation has used (issue #17): a list kept in the settings,
// newest first. The window uses it to find the ledger of the dataset it shows (the status bar,
// the Budget tab, the Release dialog's default) and to warn before a new ledger starts a fresh
// budget for a dataset that a known ledger has already charged.
#pragma once

#include <QString>
#include <QStringList>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "io/release/privacy_ledger.h"

namespace dpx::ui {

inline constexpr int kMaxKnownLedgers = 30;

// The list (QSettings "ledgers/known"), newest first; call on the GUI thread.
QStringList knownLedgers();
// Puts `path` (made absolute) first; call on the GUI thread.
void rememberLedger(const QString& path);

// A known ledger read from its file.
struct KnownLedger {
    QString path;
    data::PrivacyLedger ledger;
};
// The ledgers among `paths` (in order) that exist, load intact and record `dataset`, except
// `exclude` (the same file under any name); unreadable files are skipped. Reads files: call on a
// worker thread.
std::vector<KnownLedger> ledgersOfDataset(const QStringList& paths, const std::string& dataset,
                                          const QString& exclude = {});
// True if the two paths name the same file (or the same path when neither exists).
bool sameLedgerFile(const QString& a, const QString& b);

}  // namespace dpx::ui
