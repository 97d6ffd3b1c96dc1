#include "ui/panels/mechanism_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <cmath>

#include "core/choosing/risk.h"
#include "ui/model/document.h"
#include "ui/widgets/log_slider_field.h"

namespace dpx::ui {

namespace {

void addHeading(QComboBox* box, const QString& text) {
    box->addItem(text);
    auto* model = qobject_cast<QStandardItemModel*>(box->model());
    QStandardItem* item = model->item(box->count() - 1);
    item->setFlags(item->flags() & ~(Qt::ItemIsSelectable | Qt::ItemIsEnabled));
    QFont f = item->font();
    f.setBold(true);
    item->setFont(f);
}

}  // namespace

QString plainReading(const ExplorerState& s) {
    const double factor = std::exp(s.mechanism.epsilon);
    const QString eps = formatParameter(s.mechanism.epsilon);
    const QString times = factor < 1000 ? QString::number(factor, 'g', 3)
                                        : QLocale().toString(std::round(factor), 'f', 0);
    // Prior 50% that a given person is in the data → the largest posterior (core/choosing/risk.h):
    // pure DP e^ε/(1+e^ε) for every output; with δ > 0 the bound at ε + ln 2, which may fail on
    // outputs of total probability ≤ 2δ (attaching "except with probability δ" to the pure-DP
    // number would overstate the protection).
    const bool withDelta = usesDelta(s.mechanism.kind);
    const auto bound =
        posteriorBound(0.5, PrivacyLevel{s.mechanism.epsilon, withDelta ? s.mechanism.delta : 0.0});
    const double posterior = bound ? 100 * bound->posterior : 100.0;
    const QString post =
        posterior < 99.95 ? QString::number(posterior, 'f', 1) : QStringLiteral("99.9+");
    QString text;
    if (isLocalMechanism(s.mechanism.kind)) {
        text = QObject::tr(
                   "ε = %1, local: each person randomises their own value on their "
                   "device, so any report is at most %2× more (or less) likely for one "
                   "value than for any other. No one, not even the collector, sees the "
                   "true value.")
                   .arg(eps, times);
    } else if (withDelta) {
        text = QObject::tr(
                   "(ε, δ) = (%1, %2): adding or changing one person's data makes any "
                   "set of outcomes at most %3× more likely, plus at most δ.")
                   .arg(eps, formatParameter(s.mechanism.delta), times);
    } else {
        text = QObject::tr(
                   "ε = %1: adding or changing one person's data makes any outcome at "
                   "most %2× more (or less) likely.")
                   .arg(eps, times);
    }
    QString failure;
    if (withDelta && bound && bound->failureProbability > 0) {
        failure = QObject::tr(", except on outputs of total probability at most %1")
                      .arg(formatParameter(bound->failureProbability));
    }
    text += QLatin1Char(' ') +
            QObject::tr(
                "An observer who thought a person 50% likely to be in the data can be at "
                "most %1% sure after seeing the release%2.")
                .arg(post, failure);
    if (s.mechanism.epsilon > 5) {
        text += QLatin1Char(' ') + QObject::tr("This is weak protection.");
    }
    return text;
}

MechanismPanel::MechanismPanel(ExplorerDocument* doc, QWidget* parent)
    : QWidget(parent), doc_(doc) {
    mechanism_ = new QComboBox;
    mechanism_->setObjectName(QStringLiteral("mechanismBox"));
    mechanism_->setToolTip(
        tr("Histogram mechanisms add independent noise to every bin. Count "
           "mechanisms release each bin's count through a probability table "
           "P[output | true count] over 0…n (see the Mechanism matrix tab)."));
    addHeading(mechanism_, tr("Noise per bin"));
    for (MechanismChoice m : kAllMechanismChoices) {
        if (m == MechanismChoice::CountGeometric) {
            addHeading(mechanism_, tr("Count mechanisms (matrix)"));
        } else if (m == MechanismChoice::LocalRR) {
            addHeading(mechanism_, tr("Local protocols (each person randomises)"));
        }
        mechanism_->addItem(QStringLiteral("  ") + mechanismChoiceTitle(m),
                            QString::fromLatin1(mechanismChoiceId(m)));
    }
    epsilon_ = new LogSliderField(kMinEpsilon, kMaxEpsilon);
    epsilon_->setObjectName(QStringLiteral("epsilonField"));
    epsilon_->setToolTip(
        tr("Privacy loss ε, from 0.01 (strong privacy, much noise) to 20 (almost "
           "no privacy). Drag, or type a value and press Enter."));
    delta_ = new LogSliderField(kMinDelta, kMaxDelta);
    delta_->setObjectName(QStringLiteral("deltaField"));
    delta_->setToolTip(
        tr("δ: probability with which the ε bound may fail. Used by the Gaussian "
           "mechanism only; keep it well below 1/(number of people)."));
    calibration_ = new QComboBox;
    calibration_->addItem(
        tr("Analytic (Balle & Wang), tightest"),
        QString::fromLatin1(gaussianCalibrationName(GaussianCalibration::Analytic)));
    calibration_->addItem(
        tr("Classic √(2 ln(1.25/δ))·Δ/ε"),
        QString::fromLatin1(gaussianCalibrationName(GaussianCalibration::Classic)));
    calibration_->addItem(tr("Seed document's constant"),
                          QString::fromLatin1(gaussianCalibrationName(GaussianCalibration::Hall)));
    calibration_->setToolTip(
        tr("How σ of the Gaussian noise is derived from (ε, δ) and the L2 "
           "sensitivity."));
    estimator_ = new QComboBox;
    for (EstimatorKind e : {EstimatorKind::Identity, EstimatorKind::Clamp, EstimatorKind::Resize,
                            EstimatorKind::NoiseFirst}) {
        static const char* titles[] = {"Identity (raw noisy counts)", "Clamp negatives to 0",
                                       "Resize to the noisy total", "NoiseFirst (merge bins)"};
        estimator_->addItem(tr(titles[static_cast<int>(e)]), QString::fromLatin1(estimatorName(e)));
    }
    estimator_->setToolTip(
        tr("Post-processing of the noisy counts shown in the histogram. It "
           "costs no privacy; the Errors tab compares all of them."));
    groupSize_ = new QSpinBox;
    groupSize_->setRange(0, 2000);
    groupSize_->setSpecialValueText(tr("auto (largest count)"));
    groupSize_->setToolTip(
        tr("n: the largest possible count of a bin (the group size). The "
           "matrix is (n+1)×(n+1); every bin count must be ≤ n."));
    groupSizeLabel_ = new QLabel(tr("Group size n"));
    ldpBits_ = new QSpinBox;
    ldpBits_->setObjectName(QStringLiteral("ldpBitsBox"));
    ldpBits_->setRange(1, kMaxLdpBits);
    ldpBits_->setToolTip(
        tr("dBitFlip: each person reports one noisy bit for each of d buckets "
           "sampled at random (d ≤ the number of bins). More bits per person "
           "lower the error; Ding, Kulkarni & Yekhanin (2017) compare d = 1, 2 and 4."));
    ldpBitsLabel_ = new QLabel(tr("Bits per person d"));
    ldpSimulator_ = new QComboBox;
    ldpSimulator_->setObjectName(QStringLiteral("ldpSimulatorBox"));
    ldpSimulator_->addItem(tr("Collector's counts (fast, same distribution)"),
                           QStringLiteral("aggregate"));
    ldpSimulator_->addItem(tr("Every report, person by person"), QStringLiteral("per-user"));
    ldpSimulator_->setToolTip(
        tr("How the collection is simulated. Both give the same distribution of the estimate: "
           "the first draws the collector's totals directly (binomial and multinomial draws), "
           "the second generates every person's report (up to 20 million people)."));
    ldpSimulatorLabel_ = new QLabel(tr("Simulation"));
    seed_ = new QLineEdit;
    seed_->setToolTip(tr("Seed of the simulated noisy draw: the same seed gives the same draw."));
    newDraw_ = new QPushButton(tr("New draw"));
    newDraw_->setToolTip(tr("Draw new noise (a new random seed). Shortcut: Ctrl+D"));
    newDraw_->setShortcut(QKeySequence(QStringLiteral("Ctrl+D")));
    QWidget* seedRow = fieldLine({seed_, newDraw_}, 1);

    message_ = new QLabel;
    message_->setObjectName(QStringLiteral("mechanismMessage"));
    message_->setWordWrap(true);
    message_->setStyleSheet(QStringLiteral("color: #d62728;"));
    message_->hide();
    reading_ = new QLabel;
    reading_->setObjectName(QStringLiteral("plainReading"));
    reading_->setWordWrap(true);
    reading_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* form = new QFormLayout;
    // A field that does not fit beside its label goes under it (a narrow panel, a large zoom).
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    // Rows come and go through FormRows (see form_rows.h).
    formRows_ = std::make_unique<FormRows>(form);
    formRows_->addRow(tr("Mechanism"), mechanism_);
    formRows_->addRow(tr("ε"), epsilon_);
    formRows_->addRow(tr("δ"), delta_);
    formRows_->addRow(tr("Calibration"), calibration_);
    formRows_->addRow(groupSizeLabel_, groupSize_);
    formRows_->addRow(ldpBitsLabel_, ldpBits_);
    formRows_->addRow(ldpSimulatorLabel_, ldpSimulator_);
    formRows_->addRow(tr("Estimator"), estimator_);
    formRows_->addRow(tr("Seed"), seedRow);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(message_);
    layout->addWidget(reading_);
    layout->addStretch(1);

    connect(mechanism_, &QComboBox::activated, this, [this](int index) {
        auto m = mechanismChoiceFromId(mechanism_->itemData(index).toString());
        if (m) {
            report(tr("Mechanism"), doc_->setMechanism(*m));
        }
    });
    connect(epsilon_, &LogSliderField::valueEdited, this,
            [this](double v, bool) { report(tr("ε"), doc_->setEpsilon(v)); });
    connect(epsilon_, &LogSliderField::textRejected, this, [this](const QString& t) {
        report(tr("ε"), Error{"'" + t.toStdString() + "' is not a number"});
    });
    connect(delta_, &LogSliderField::valueEdited, this,
            [this](double v, bool) { report(tr("δ"), doc_->setDelta(v)); });
    connect(delta_, &LogSliderField::textRejected, this, [this](const QString& t) {
        report(tr("δ"), Error{"'" + t.toStdString() + "' is not a number"});
    });
    connect(calibration_, &QComboBox::activated, this, [this](int index) {
        ExplorerState s = doc_->state();
        s.mechanism.calibration =
            *gaussianCalibrationFromName(calibration_->itemData(index).toString().toStdString());
        report(tr("Calibration"), doc_->apply(s, tr("choose calibration")));
    });
    connect(estimator_, &QComboBox::activated, this, [this](int index) {
        report(tr("Estimator"), doc_->setEstimator(*estimatorFromName(
                                    estimator_->itemData(index).toString().toStdString())));
    });
    connect(groupSize_, &QSpinBox::valueChanged, this, [this](int n) {
        ExplorerState s = doc_->state();
        s.mechanism.countN = n;
        report(tr("Group size"), doc_->apply(s, tr("change group size"), QStringLiteral("n")));
    });
    connect(ldpBits_, &QSpinBox::valueChanged, this, [this](int d) {
        ExplorerState s = doc_->state();
        s.mechanism.ldpBits = d;
        report(tr("Bits per person"),
               doc_->apply(s, tr("change bits per person"), QStringLiteral("ldpBits")));
    });
    connect(ldpSimulator_, &QComboBox::activated, this, [this](int index) {
        ExplorerState s = doc_->state();
        s.mechanism.ldpPerUser =
            ldpSimulator_->itemData(index).toString() == QLatin1String("per-user");
        report(tr("Simulation"), doc_->apply(s, tr("choose simulation")));
    });
    connect(seed_, &QLineEdit::editingFinished, this, [this] {
        bool ok = false;
        const quint64 v = seed_->text().trimmed().toULongLong(&ok);
        if (!ok) {
            report(tr("Seed"), Error{"the seed must be a whole number from 0 to 2^64 − 1"});
            return;
        }
        report(tr("Seed"), doc_->setSeed(v));
    });
    connect(newDraw_, &QPushButton::clicked, this, [this] {
        report(tr("Seed"), doc_->setSeed(QRandomGenerator::global()->generate64()));
    });
    connect(doc_, &ExplorerDocument::changed, this,
            [this](unsigned, const ExplorerState& s) { showState(s); });
    showState(doc_->state());
}

void MechanismPanel::report(const QString& field, const Status& st) {
    if (st) {
        message_->hide();
        messageField_.clear();
        epsilon_->setError({});
        delta_->setError({});
        showState(doc_->state());
        return;
    }
    const QString text = field + QStringLiteral(": ") + QString::fromStdString(st.error().message);
    message_->setText(text);
    message_->show();
    messageField_ = field;
    if (field == tr("ε")) {
        epsilon_->setError(text);
    } else if (field == tr("δ")) {
        delta_->setError(text);
    }
}

void MechanismPanel::showState(const ExplorerState& s) {
    const QSignalBlocker b1(mechanism_), b2(calibration_), b3(estimator_), b4(groupSize_),
        b5(ldpBits_), b6(ldpSimulator_);
    mechanism_->setCurrentIndex(
        mechanism_->findData(QString::fromLatin1(mechanismChoiceId(s.mechanism.kind))));
    epsilon_->setValue(s.mechanism.epsilon);
    delta_->setValue(s.mechanism.delta);
    delta_->setEnabled(usesDelta(s.mechanism.kind));
    calibration_->setCurrentIndex(calibration_->findData(
        QString::fromLatin1(gaussianCalibrationName(s.mechanism.calibration))));
    calibration_->setEnabled(s.mechanism.kind == MechanismChoice::Gaussian);
    estimator_->setCurrentIndex(
        estimator_->findData(QString::fromLatin1(estimatorName(s.mechanism.estimator))));
    groupSize_->setValue(s.mechanism.countN);
    groupSize_->setEnabled(isCountMechanism(s.mechanism.kind));
    groupSizeLabel_->setEnabled(isCountMechanism(s.mechanism.kind));
    const bool local = isLocalMechanism(s.mechanism.kind);
    const bool dbitflip = s.mechanism.kind == MechanismChoice::LocalDBitFlip;
    ldpBits_->setValue(s.mechanism.ldpBits);
    formRows_->setRowShown(ldpBits_, dbitflip);
    ldpSimulator_->setCurrentIndex(s.mechanism.ldpPerUser ? 1 : 0);
    formRows_->setRowShown(ldpSimulator_, local);
    formRows_->setRowShown(groupSize_, !local);
    // Local estimates: resize projects onto the known total N (the number of reports).
    const int resize =
        estimator_->findData(QString::fromLatin1(estimatorName(EstimatorKind::Resize)));
    estimator_->setItemText(
        resize, local ? tr("Resize to the known total N") : tr("Resize to the noisy total"));
    // NoiseFirst's rule is derived for Laplace noise: not offered for local estimates.
    if (auto* model = qobject_cast<QStandardItemModel*>(estimator_->model())) {
        const int nf =
            estimator_->findData(QString::fromLatin1(estimatorName(EstimatorKind::NoiseFirst)));
        if (QStandardItem* item = model->item(nf)) {
            item->setEnabled(!local);
        }
    }
    if (!seed_->hasFocus()) {
        seed_->setText(QString::number(s.mechanism.seed));
    }
    reading_->setText(plainReading(s));
    // A refusal describes the value the user typed. Once the control shows the document's value
    // again (every change of the document redraws the controls: undo, a session, a click on the
    // trade-off tab), the message describes nothing on screen and goes.
    if (!messageField_.isEmpty()) {
        const bool stillShown = messageField_ == tr("ε")   ? !epsilon_->error().isEmpty()
                                : messageField_ == tr("δ") ? !delta_->error().isEmpty()
                                : messageField_ == tr("Seed")
                                    ? seed_->text().trimmed() != QString::number(s.mechanism.seed)
                                    : false;
        if (!stillShown) {
            message_->hide();
            messageField_.clear();
        }
    }
}

}  // namespace dpx::ui
