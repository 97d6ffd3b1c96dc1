#include "ui/tabs/plan_on_box.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "core/choosing/public_proxy.h"
#include "io/sources/proxy_source.h"
#include "ui/model/explorer_state.h"
#include "ui/widgets/number_format.h"

namespace dpx::ui {

namespace {

// The kinds in the combo's order: data = the plan-on text's kind.
struct KindRow {
    const char* id;
    const char* title;
    const char* parameterLabel;  // nullptr: no parameter
    const char* placeholder;
};
constexpr KindRow kKinds[] = {
    {"confidential", QT_TRANSLATE_NOOP("PlanOnBox", "the confidential data"), nullptr, nullptr},
    {"uniform", QT_TRANSLATE_NOOP("PlanOnBox", "public proxy: uniform"), nullptr, nullptr},
    {"normal", QT_TRANSLATE_NOOP("PlanOnBox", "public proxy: normal"),
     QT_TRANSLATE_NOOP("PlanOnBox", "Mean, sd:"),
     QT_TRANSLATE_NOOP("PlanOnBox", "in bins (4.5,2) or % of the range (50%,20%)")},
    {"weights", QT_TRANSLATE_NOOP("PlanOnBox", "public proxy: weights"),
     QT_TRANSLATE_NOOP("PlanOnBox", "Weights:"),
     QT_TRANSLATE_NOOP("PlanOnBox", "one per bin: 1,2,4,2,1")},
    {"shape", QT_TRANSLATE_NOOP("PlanOnBox", "public proxy: shape file"),
     QT_TRANSLATE_NOOP("PlanOnBox", "File:"),
     QT_TRANSLATE_NOOP("PlanOnBox", "a CSV of weights, one per bin")},
    {"release", QT_TRANSLATE_NOOP("PlanOnBox", "public proxy: previous release"),
     QT_TRANSLATE_NOOP("PlanOnBox", "Release CSV:"),
     QT_TRANSLATE_NOOP("PlanOnBox", "a release CSV with the same bins")},
};

// Narrow no-break spaces: "10 000" never wraps between its groups.
QString grouped(std::int64_t n) {
    return formatNarrowSpaceGrouped(static_cast<long long>(n));
}

// PlanOn's words with a file's name instead of its path and N grouped by thin spaces.
QString proxyWords(PlanOn plan) {
    if (!plan.path.empty()) {
        plan.path = QFileInfo(QString::fromStdString(plan.path)).fileName().toStdString();
    }
    return QString::fromStdString(plan.shapeDescription()) + QStringLiteral(", N = ") +
           grouped(plan.population);
}

}  // namespace

PlannedHistogram plannedHistogram(const TradeoffChoices& choices,
                                  const std::optional<Histogram>& confidential) {
    PlannedHistogram out;
    auto plan = parsePlanOn(choices.planOn.toStdString());
    if (!plan) {
        out.error = QObject::tr("Plan on: %1").arg(QString::fromStdString(plan.error().message));
        out.proxy = choices.planOn != QLatin1String("confidential");
        out.computedOn = QObject::tr("a public proxy (not built)");
        return out;
    }
    out.proxy = plan->isProxy();
    if (!out.proxy) {
        out.histogram = confidential;
        out.computedOn = QObject::tr("the confidential data");
        return out;
    }
    plan->population = choices.planPopulation;
    out.population = choices.planPopulation;
    out.computedOn = QObject::tr("a public proxy: %1").arg(proxyWords(*plan));
    if (!confidential) {
        return out;  // no binning yet: the tab says why there is no data
    }
    if (choices.planPopulation < 1) {
        out.error = QObject::tr(
            "Type the population N the proxy is scaled to. It is declared, not read from the "
            "data: the data's size is itself private.");
        out.computedOn = QObject::tr("a public proxy (N not declared yet)");
        return out;
    }
    auto loaded = data::loadPlanOnFile(*plan);
    if (!loaded) {
        out.error = QObject::tr("Plan on: %1").arg(QString::fromStdString(loaded.error().message));
        return out;
    }
    // Only the binning of the confidential histogram: its number of bins, labels and edges.
    auto proxy = buildProxyHistogram(*loaded, confidential->size(), confidential->labels(),
                                     confidential->edges());
    if (!proxy) {
        out.error = QObject::tr("Plan on: %1").arg(QString::fromStdString(proxy.error().message));
        return out;
    }
    out.histogram = std::move(*proxy);
    return out;
}

QString basisCaption(const PlannedHistogram& planned) {
    if (!planned.proxy) {
        return QObject::tr(
            "<b>Computed on the confidential data:</b> an ε chosen from these curves depends on "
            "the data, which the release's ε does not cover. Plan on a public proxy (the “Plan "
            "on” box, beside or under the plot) to avoid it.");
    }
    return QObject::tr(
               "<b>Computed on %1</b> (declared; the data's counts and size are not "
               "used). Its curves may differ from the data's.")
        .arg(planned.computedOn.toHtmlEscaped());
}

QString basisSubtitle(const PlannedHistogram& planned) {
    // Short enough for the plot's width at 1024 × 768; the shape is in the caption above.
    if (planned.proxy && planned.population > 0) {
        return QObject::tr("computed on a public proxy, N = %1").arg(grouped(planned.population));
    }
    return planned.proxy ? QObject::tr("computed on a public proxy")
                         : QObject::tr("computed on %1").arg(planned.computedOn);
}

PlanOnBox::PlanOnBox(QWidget* parent)
    : QGroupBox(tr("Plan on (choosing ε without leaking)"), parent) {
    setObjectName(QStringLiteral("tradeoffPlanOn"));
    kind_ = new QComboBox;
    kind_->setObjectName(QStringLiteral("tradeoffPlanKind"));
    for (const KindRow& k : kKinds) {
        kind_->addItem(tr(k.title), QString::fromLatin1(k.id));
    }
    kind_->setToolTip(
        tr("Curves computed on the confidential data make the choice of ε data-dependent. A "
           "public proxy has the same bins, a public shape and a declared size N."));
    parameter_ = new QLineEdit;
    parameter_->setObjectName(QStringLiteral("tradeoffPlanParameter"));
    parameterLabel_ = new QLabel;
    parameterLabel_->setBuddy(parameter_);
    browse_ = new QPushButton(tr("…"));
    browse_->setObjectName(QStringLiteral("tradeoffPlanBrowse"));
    browse_->setToolTip(tr("Choose the file"));
    population_ = new QDoubleSpinBox;
    population_->setObjectName(QStringLiteral("tradeoffPlanPopulation"));
    population_->setRange(0, static_cast<double>(kMaxProxyPopulation));
    population_->setDecimals(0);
    population_->setValue(0);
    population_->setSpecialValueText(tr("not declared"));
    population_->setKeyboardTracking(false);
    population_->setGroupSeparatorShown(true);
    population_->setToolTip(
        tr("The population N the proxy is scaled to (Hamilton's largest "
           "remainders). Declared by you, never read from the data."));
    populationLabel_ = new QLabel(tr("Declared &N:"));
    populationLabel_->setBuddy(population_);
    note_ = new QLabel(tr("The data's size is itself private: declare N."));
    note_->setWordWrap(true);

    paramRow_ = fieldLine({parameter_, browse_}, 1);
    // Rows come and go through FormRows (see form_rows.h).
    rows_ = std::make_unique<FormRows>(new QFormLayout(this));
    rows_->addRow(tr("Curves &on:"), kind_);
    rows_->addRow(parameterLabel_, paramRow_);
    rows_->addRow(populationLabel_, population_);
    rows_->addRow(note_);
    updateFields();

    connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
        updateFields();
        Q_EMIT edited();
    });
    connect(parameter_, &QLineEdit::editingFinished, this, [this] { Q_EMIT edited(); });
    connect(population_, &QDoubleSpinBox::valueChanged, this, [this] { Q_EMIT edited(); });
    connect(browse_, &QPushButton::clicked, this, &PlanOnBox::browse);
}

QString PlanOnBox::planOnText() const {
    const QString id = kind_->currentData().toString();
    const KindRow& row = kKinds[std::max(0, kind_->currentIndex())];
    if (!row.parameterLabel) {
        return id;
    }
    return id + QLatin1Char(':') + parameter_->text().trimmed();
}

qint64 PlanOnBox::population() const {
    return static_cast<qint64>(population_->value());
}

void PlanOnBox::setPlan(const QString& text, qint64 population) {
    const QSignalBlocker b1(kind_), b2(parameter_), b3(population_);
    const QString id = text.section(QLatin1Char(':'), 0, 0);
    const int index = kind_->findData(id);
    kind_->setCurrentIndex(index < 0 ? 0 : index);
    const qsizetype colon = text.indexOf(QLatin1Char(':'));
    parameter_->setText(colon < 0 ? QString() : text.mid(colon + 1));
    population_->setValue(static_cast<double>(population));
    updateFields();
}

void PlanOnBox::updateFields() {
    const KindRow& row = kKinds[std::max(0, kind_->currentIndex())];
    const bool proxy = kind_->currentIndex() > 0;
    const bool file = QLatin1String(row.id) == QLatin1String("shape") ||
                      QLatin1String(row.id) == QLatin1String("release");
    parameterLabel_->setText(row.parameterLabel ? tr(row.parameterLabel) : QString());
    rows_->setRowShown(paramRow_, row.parameterLabel != nullptr);
    parameter_->setPlaceholderText(row.placeholder ? tr(row.placeholder) : QString());
    browse_->setVisible(file);
    rows_->setRowShown(population_, proxy);
    rows_->setRowShown(note_, proxy);
}

void PlanOnBox::browse() {
    const bool release = kind_->currentData().toString() == QLatin1String("release");
    const QString path = QFileDialog::getOpenFileName(
        this, release ? tr("Previous release (CSV)") : tr("Shape file (CSV of weights)"),
        QFileInfo(parameter_->text()).absolutePath(),
        tr("CSV files (*.csv *.tsv *.txt);;All files (*)"));
    if (!path.isEmpty()) {
        parameter_->setText(path);
        Q_EMIT edited();
    }
}

}  // namespace dpx::ui
