// File ▸ Export decision report… (issue #22): the decision report (io/report; PDF or HTML) of the
// last release made in this window, enabled only once there is one. The release is charged and
// published first; the report describes it afterwards and is built and written on the job runner
// (the trade-off curves and the PDF's layout take a moment), never on the GUI thread.
#pragma once

#include <QObject>
#include <QString>
#include <functional>
#include <optional>
#include <string>

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
    // The release the report describes: its outcome, the spec it was made with and the ledger's
    // description of the data. Enables the action.
    void setLastRelease(const data::ReleaseOutcome& outcome, const ReleaseSpec& spec,
                        const std::string& dataset);
    bool hasRelease() const { return last_.has_value(); }

    // Writes the report to `path` (.pdf, .html or .htm) on the job runner; `finished` follows.
    void exportTo(const QString& path);

    // Tests replace the file dialog and the message boxes.
    void setChoosePath(std::function<QString(const QString& suggested)> choose) {
        choose_ = std::move(choose);
    }
    void setReport(std::function<void(bool ok, const QString& text)> report) {
        report_ = std::move(report);
    }

Q_SIGNALS:
    void finished(bool ok, const QString& message);

private:
    void chooseAndExport();

    struct Last {
        data::ReleaseOutcome outcome;
        ReleaseSpec spec;
        std::string dataset;
    };
    JobRunner* runner_;
    QWidget* window_;
    QAction* action_;
    std::optional<Last> last_;
    std::function<QString(const QString&)> choose_;
    std::function<void(bool, const QString&)> report_;
};

}  // namespace dpx::ui
