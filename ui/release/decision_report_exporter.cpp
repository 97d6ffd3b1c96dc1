#include "ui/release/decision_report_exporter.h"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPointer>
#include <QWidget>

#include "io/release/release_files.h"
#include "io/report/decision_report_files.h"
#include "ui/model/job_runner.h"
#include "ui/release/known_ledgers.h"

namespace dpx::ui {

namespace {

const QString kReportSlot = QStringLiteral("decision report");
const QString kFindLedgerSlot = QStringLiteral("decision report ledger");

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
    fileAction_ = new QAction(tr("Export decision report of a release &file…"), this);
    fileAction_->setObjectName(QStringLiteral("decisionReportFileAction"));
    fileAction_->setToolTip(
        tr("Rebuild the decision report of a release already on disk from its metadata (.json), "
           "the CSV beside it and the ledger that charged it (found among the known ledgers, "
           "or chosen); the report says it was rebuilt, and refuses files edited since."));
    connect(fileAction_, &QAction::triggered, this,
            &DecisionReportExporter::chooseReleaseFileAndExport);
    chooseRelease_ = [this] {
        return QFileDialog::getOpenFileName(window_, tr("Release metadata"), QString(),
                                            tr("Release metadata (*.json)"));
    };
    chooseLedger_ = [this](const QString& dir) {
        return QFileDialog::getOpenFileName(
            window_, tr("Ledger that charged the release (Cancel: none, budget not stated)"), dir,
            tr("Privacy ledger (*.json)"));
    };
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

QString DecisionReportExporter::findLedgerOf(const QString& metadataPath,
                                             const QStringList& candidates) {
    auto hashOf = [](const QString& path) -> std::string {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) {
            return {};
        }
        const QByteArray bytes = f.readAll();
        return data::sha256Hex(std::string_view(bytes.constData(), bytes.size()));
    };
    const std::string jsonHash = hashOf(metadataPath);
    const std::string csvHash = hashOf(q(data::csvPathForMetadata(metadataPath.toStdString())));
    if (jsonHash.empty() || csvHash.empty()) {
        return {};
    }
    const QString self = QFileInfo(metadataPath).absoluteFilePath();
    for (const QString& c : candidates) {
        if (QFileInfo(c).absoluteFilePath() == self || !QFileInfo(c).isFile()) {
            continue;
        }
        {
            // Only ledger files are loaded (a release's own metadata is JSON too).
            QFile f(c);
            if (!f.open(QIODevice::ReadOnly) || !f.peek(4096).contains("dpx-privacy-ledger")) {
                continue;
            }
        }
        auto ledger = data::PrivacyLedger::load(c.toStdString());
        if (!ledger) {
            continue;
        }
        for (const data::LedgerRelease& r : ledger->releases()) {
            if (r.sha256.size() == 2 && r.sha256[0] == csvHash && r.sha256[1] == jsonHash) {
                return c;
            }
        }
    }
    return {};
}

void DecisionReportExporter::chooseReleaseFileAndExport() {
    const QString metadata = chooseRelease_();
    if (metadata.isEmpty()) {
        return;
    }
    // Candidates: the known ledgers (settings: read here, on the GUI thread), then the JSON files
    // in the release's folder (at most 200).
    QStringList candidates = knownLedgers();
    const QDir dir = QFileInfo(metadata).absoluteDir();
    const QStringList local = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (qsizetype i = 0; i < local.size() && i < 200; ++i) {
        candidates.append(dir.filePath(local[i]));
    }
    fileAction_->setEnabled(false);
    QPointer<DecisionReportExporter> self(this);
    runner_->run<QString>(
        kFindLedgerSlot,
        [metadata, candidates](std::stop_token, JobProgress&) {
            return findLedgerOf(metadata, candidates);
        },
        [self, metadata, dir](QString ledger) {
            if (!self) {
                return;
            }
            self->fileAction_->setEnabled(true);
            if (ledger.isEmpty()) {
                ledger = self->chooseLedger_(dir.absolutePath());
            }
            const QFileInfo json(metadata);
            const QString suggested = json.absoluteDir().filePath(json.completeBaseName() +
                                                                  QStringLiteral("-report.pdf"));
            const QString path = self->choose_(suggested);
            if (!path.isEmpty()) {
                self->exportReleaseFile(metadata, ledger, path);
            }
        });
}

void DecisionReportExporter::exportReleaseFile(const QString& metadataPath,
                                               const QString& ledgerPath, const QString& path) {
    const std::string csv = data::csvPathForMetadata(metadataPath.toStdString());
    auto check = data::checkReportPath(path.toStdString(), true,
                                       {metadataPath.toStdString(), csv, ledgerPath.toStdString()});
    if (!check) {
        finishRun(false, path, q(check.error().message), false);
        return;
    }
    data::ReleaseFilesForReport files;
    files.metadataPath = metadataPath.toStdString();
    files.ledgerPath = ledgerPath.toStdString();
    files.toolVersion = QCoreApplication::applicationVersion().toStdString();
    runReport(
        fileAction_, path, false, [files] { return data::decisionReportInputFromFiles(files); },
        [ledger = q(files.ledgerPath)](const DecisionReportInput& input) {
            return !input.ledgerGiven
                       ? tr("No ledger was given: the report does not state the budget and "
                            "did not compare the files with the ledger's record.")
                       : tr("Rebuilt with the ledger %1 (release %2 of it).")
                             .arg(ledger)
                             .arg(input.budget.releasesInLedger);
        });
}

void DecisionReportExporter::runReport(QAction* action, const QString& path, bool releaseUnchanged,
                                       std::function<Expected<DecisionReportInput>()> input,
                                       std::function<QString(const DecisionReportInput&)> said) {
    action->setEnabled(false);
    QPointer<DecisionReportExporter> self(this);
    runner_->run<ReportRun>(
        kReportSlot,
        [input = std::move(input), said = std::move(said), file = path.toStdString()](
            std::stop_token, JobProgress&) {
            ReportRun run;
            auto in = input();
            if (!in) {
                run.message = q(in.error().message);
                return run;
            }
            auto written = data::writeDecisionReportOf(*in, file, true);
            run.ok = static_cast<bool>(written);
            run.message = written ? said(*in) : q(written.error().message);
            return run;
        },
        [self, action, path, releaseUnchanged](ReportRun run) {
            if (!self) {
                return;
            }
            action->setEnabled(true);  // a child of self
            self->finishRun(run.ok, path, run.message, releaseUnchanged);
        });
}

void DecisionReportExporter::finishRun(bool ok, const QString& path, const QString& message,
                                       bool releaseUnchanged) {
    QString text;
    if (ok) {
        text = tr("Decision report written to %1.").arg(path);
        if (!message.isEmpty()) {
            text += QStringLiteral("\n\n") + message;
        }
    } else {
        text = tr("The decision report was not written: %1").arg(message);
        if (releaseUnchanged) {
            text += tr("\n\nThe release itself is unchanged (charged and published).");
        }
    }
    report_(ok, text);
    Q_EMIT finished(ok, text);
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
        finishRun(false, path, q(check.error().message), true);
        return;
    }
    runReport(
        action_, path, true,
        [last = *last_] {
            return data::decisionReportInputFor(last.outcome, last.spec, last.dataset);
        },
        [](const DecisionReportInput&) { return QString(); });
}

}  // namespace dpx::ui
