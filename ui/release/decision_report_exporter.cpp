#include "ui/release/decision_report_exporter.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPointer>
#include <QWidget>

#include "io/report/decision_report_files.h"
#include "ui/model/job_runner.h"

namespace dpx::ui {

namespace {

const QString kReportSlot = QStringLiteral("decision report");

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

struct ReportRun {
    bool ok = false;
    QString message;
};

}  // namespace

DecisionReportExporter::DecisionReportExporter(JobRunner* runner, QWidget* window)
    : QObject(window), runner_(runner), window_(window) {
    action_ = new QAction(tr("Export &decision report…"), this);
    action_->setObjectName(QStringLiteral("decisionReportAction"));
    action_->setEnabled(false);
    action_->setToolTip(
        tr("Write the decision report of the last release (PDF or HTML): the table released, "
           "mechanism, ε/δ, intervals, what an attacker can learn, alternatives, budget before "
           "and after, samplers and the SHA-256 of the files. Enabled after a release."));
    connect(action_, &QAction::triggered, this, &DecisionReportExporter::chooseAndExport);
    choose_ = [this](const QString& suggested) {
        return QFileDialog::getSaveFileName(window_, tr("Export decision report"), suggested,
                                            tr("PDF (*.pdf);;HTML (*.html *.htm)"));
    };
    report_ = [this](bool ok, const QString& text) {
        if (ok) {
            QMessageBox::information(window_, tr("Decision report"), text);
        } else {
            QMessageBox::warning(window_, tr("Decision report not written"), text);
        }
    };
}

void DecisionReportExporter::setLastRelease(const data::ReleaseOutcome& outcome,
                                            const ReleaseSpec& spec, const std::string& dataset) {
    last_ = Last{outcome, spec, dataset};
    action_->setEnabled(true);
}

void DecisionReportExporter::chooseAndExport() {
    if (!last_) {
        return;
    }
    // Beside the release: release.csv → release-report.pdf.
    const QFileInfo csv(q(last_->outcome.csvPath));
    const QString suggested =
        csv.absoluteDir().filePath(csv.completeBaseName() + QStringLiteral("-report.pdf"));
    const QString path = choose_(suggested);
    if (!path.isEmpty()) {
        exportTo(path);
    }
}

void DecisionReportExporter::exportTo(const QString& path) {
    if (!last_) {
        return;
    }
    const data::ReleaseOutcome& o = last_->outcome;
    // The file dialog asked before replacing an existing file.
    auto check =
        data::checkReportPath(path.toStdString(), true, {o.csvPath, o.jsonPath, o.ledgerPath});
    if (!check) {
        const QString text = tr("The decision report was not written: %1\n\nThe release itself "
                                "is unchanged.")
                                 .arg(q(check.error().message));
        report_(false, text);
        Q_EMIT finished(false, text);
        return;
    }
    action_->setEnabled(false);
    QPointer<DecisionReportExporter> self(this);
    runner_->run<ReportRun>(
        kReportSlot,
        [last = *last_, file = path.toStdString()](std::stop_token, JobProgress&) {
            ReportRun run;
            auto input = data::decisionReportInputFor(last.outcome, last.spec, last.dataset);
            if (!input) {
                run.message = q(input.error().message);
                return run;
            }
            auto report = buildDecisionReport(*input);
            if (!report) {
                run.message = q(report.error().message);
                return run;
            }
            auto written = data::writeDecisionReport(*report, file, true);
            run.ok = static_cast<bool>(written);
            if (!written) {
                run.message = q(written.error().message);
            }
            return run;
        },
        [self, path](ReportRun run) {
            if (!self) {
                return;
            }
            self->action_->setEnabled(true);
            const QString text =
                run.ok ? tr("Decision report written to %1.").arg(path)
                       : tr("The decision report was not written: %1\n\nThe release itself is "
                            "unchanged (charged and published).")
                             .arg(run.message);
            self->report_(run.ok, text);
            Q_EMIT self->finished(run.ok, text);
        });
}

}  // namespace dpx::ui
