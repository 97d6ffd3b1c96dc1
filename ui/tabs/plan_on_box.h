// "Plan on" (issue #22, choosing ε without leaking): what the Trade-off tab's curves, frontier and
// smallest-ε answers are computed on — the confidential data (the default, marked as such) or a
// public proxy with the same bins scaled to a DECLARED population N (core/choosing/public_proxy.h;
// files read by io/sources/proxy_source.h). The box edits ExplorerState::tradeoff.planOn and
// planPopulation; plannedHistogram builds what the curves run on, and basisCaption says in words
// what that is, for the badge beside the plot and the plot's own subtitle (exports carry it).
#pragma once

#include <QGroupBox>
#include <QString>
#include <memory>
#include <optional>

#include "core/histogram/histogram.h"
#include "ui/widgets/form_rows.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace dpx::ui {

struct TradeoffChoices;

// What the planning views compute on: the histogram (the confidential one, or the proxy), or why
// there is none; `proxy` is true for a public proxy; `computedOn` the words of
// PlanOn::computedOn ("confidential data", "public proxy: uniform, N = 30000").
struct PlannedHistogram {
    std::optional<Histogram> histogram;
    QString error;
    bool proxy = false;
    qint64 population = 0;  // a proxy's declared N (0: not declared)
    QString computedOn;
};
// Reads a shape or release file (small: one number per bin) on the calling thread. Only the
// confidential histogram's number of bins, labels and edges are used for a proxy — never its
// counts or total.
PlannedHistogram plannedHistogram(const TradeoffChoices& choices,
                                  const std::optional<Histogram>& confidential);

// The caption of the planning views: "Computed on the confidential data: …" or "Computed on a
// public proxy: …" (rich text).
QString basisCaption(const PlannedHistogram& planned);
// The short form for inside a plot: "computed on the confidential data" / "computed on a public
// proxy: uniform, N = 30 000".
QString basisSubtitle(const PlannedHistogram& planned);

class PlanOnBox : public QGroupBox {
    Q_OBJECT
public:
    explicit PlanOnBox(QWidget* parent = nullptr);

    // The plan-on text and population the controls show ("normal:5,2", 30000).
    QString planOnText() const;
    qint64 population() const;
    // Shows a plan (no signal).
    void setPlan(const QString& text, qint64 population);

    QComboBox* kindCombo() const { return kind_; }
    QLineEdit* parameterEdit() const { return parameter_; }
    QDoubleSpinBox* populationSpin() const { return population_; }

Q_SIGNALS:
    void edited();

private:
    void updateFields();
    void browse();

    QComboBox* kind_ = nullptr;
    QLabel* parameterLabel_ = nullptr;
    QWidget* paramRow_ = nullptr;  // the parameter and, for files, Browse
    QLineEdit* parameter_ = nullptr;
    QPushButton* browse_ = nullptr;
    QLabel* populationLabel_ = nullptr;
    QDoubleSpinBox* population_ = nullptr;
    QLabel* note_ = nullptr;
    std::unique_ptr<FormRows> rows_;  // see form_rows.h
};

}  // namespace dpx::ui
