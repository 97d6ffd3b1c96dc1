// File ▸ Export decision report… (issue #22): the decision report (io/report; PDF or HTML) of the
// last release made in this window, enabled only once there is one. The release is charged and
// published first; the report describes it afterwards and is built and written on the job runner
// (the trade-off curves and the PDF's layout take a moment), never on the GUI thread.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>
#include <string>

#include "core/base/expected.h"
#include "core/report/decision_report.h"
#include "io/release/release_job.h"

class QAction;
class QWidget;

namespace dpx::ui {

class JobRunner;

class DecisionReportExporter : public QObject {
    Q_OBJECT
public:
    DecisionReportExporter(JobRunner* runner, QWidget* window);

    QAction* action() const { return action_; }
    // File ▸ Export decision report of a release file… (always enabled): the report of a release
    // already on disk, rebuilt from its metadata JSON, the CSV beside it and the ledger that
    // charged it — found among the known ledgers and the ledgers in the release's folder (the one
    // whose entry records the files' SHA-256), else chosen by the user (none: the budget is not
    // stated) — on the job runner.
    QAction* fileAction() const { return fileAction_; }
    // The release the report describes: its outcome, the spec it was made with and the ledger's
    // description of the data. Enables the action.
    void setLastRelease(const data::ReleaseOutcome& outcome, const ReleaseSpec& spec,
                        const std::string& dataset);
    bool hasRelease() const { return last_.has_value(); }

    // Writes the report to `path` (.pdf, .html or .htm) on the job runner; `finished` follows.
    void exportTo(const QString& path);

    // Rebuilds the report of the release whose metadata is `metadataPath` with the ledger
    // `ledgerPath` (empty: none) and writes it to `path`, on the job runner; `finished` follows.
    void exportReleaseFile(const QString& metadataPath, const QString& ledgerPath,
                           const QString& path);
    // The ledger among `candidates` (in order) whose entries record the release files' SHA-256,
    // or empty. Reads files: call on a worker thread.
    static QString findLedgerOf(const QString& metadataPath, const QStringList& candidates);

    // Tests replace the file dialog and the message boxes.
    void setChoosePath(std::function<QString(const QString& suggested)> choose) {
        choose_ = std::move(choose);
    }
    // The release file's metadata JSON (Open dialog) and, when no known ledger holds it, the
    // ledger (Open dialog; empty: none).
    void setChooseRelease(std::function<QString()> choose) { chooseRelease_ = std::move(choose); }
    void setChooseLedger(std::function<QString(const QString& dir)> choose) {
        chooseLedger_ = std::move(choose);
    }
    void setReport(std::function<void(bool ok, const QString& text)> report) {
        report_ = std::move(report);
    }

Q_SIGNALS:
    void finished(bool ok, const QString& message);

private:
    void chooseAndExport();
    void chooseReleaseFileAndExport();
    void finishRun(bool ok, const QString& path, const QString& message, bool releaseUnchanged);
    // The one file-writing path of both exports: on the job runner, the report's input (made
    // there: it reads and hashes the release files), the report and its file
    // (data::writeDecisionReportOf); `said(input)` adds to the success message. `action` is
    // disabled meanwhile; finishRun follows on the GUI thread.
    void runReport(QAction* action, const QString& path, bool releaseUnchanged,
                   std::function<Expected<DecisionReportInput>()> input,
                   std::function<QString(const DecisionReportInput&)> said);

    struct Last {
        data::ReleaseOutcome outcome;
        ReleaseSpec spec;
        std::string dataset;
    };
    JobRunner* runner_;
    QWidget* window_;
    QAction* action_;
    QAction* fileAction_;
    std::optional<Last> last_;
    std::function<QString(const QString&)> choose_;
    std::function<QString()> chooseRelease_;
    std::function<QString(const QString&)> chooseLedger_;
    std::function<void(bool, const QString&)> report_;
};

}  // namespace dpx::ui
