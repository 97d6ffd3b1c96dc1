#include "app/cli/commands/select.h"

#include <QJsonArray>
#include <QJsonObject>
#include <cmath>
#include <ostream>
#include <set>

#include "app/cli/args.h"
#include "app/cli/commands/sparse.h"
#include "app/cli/commands/truth.h"
#include "app/cli/output.h"
#include "core/base/validation.h"
#include "core/mechanisms/exponential_mechanism.h"

namespace dpx::cli {

namespace {}  // namespace

int cmdSelect(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto input = histogramInputFromArgs(
        argv, {"epsilon", "task", "quantile", "neighbouring", "monotone", "path-steps", "path"},
        &err);
    if (!input) {
        return fail(err, input.error());
    }
    const Args& a = input->args;
    const Histogram& hist = input->histogram;
    const double eps = input->epsilon;
    SelectionParams p;
    p.epsilon = eps;
    const std::string task = a.text("task", "mode");
    if (task == "mode") {
        p.task = SelectionTask::Mode;
        if (a.has("quantile")) {
            return fail(err, Error{"--quantile applies to --task quantile only"});
        }
    } else if (task == "quantile") {
        p.task = SelectionTask::Quantile;
        if (input->attributes >= 2) {
            return fail(err, Error{"--task quantile is not meaningful on a table of " +
                                   std::to_string(input->attributes) +
                                   " attributes (its cells have no order); give one attribute "
                                   "or use --task mode"});
        }
        auto q = a.number("quantile", 0.5);
        if (!q) {
            return fail(err, q.error());
        }
        p.quantile = *q;
        if (!std::isfinite(*q) || *q < 0 || *q > 1) {
            return fail(err, Error{"--quantile must be in [0, 1] (got " + formatNumber(*q) + ")"});
        }
    } else {
        return fail(err, Error{"--task: unknown task '" + task + "' (use mode or quantile)"});
    }
    auto rel = neighbouringFromName(a.text("neighbouring", "add-remove"));
    if (!rel) {
        return fail(err, Error{"--neighbouring: " + rel.error().message});
    }
    p.neighbouring = *rel;
    const std::string mono = a.text("monotone", "yes");
    if (mono != "yes" && mono != "no") {
        return fail(err, Error{"--monotone must be yes or no (got '" + mono + "')"});
    }
    p.useMonotone = mono == "yes";
    const std::string path = a.text("path", "yes");
    if (path != "yes" && path != "no") {
        return fail(err, Error{"--path must be yes or no (got '" + path + "')"});
    }
    auto steps = a.unsignedInt("path-steps", 0);
    if (!steps) {
        return fail(err, steps.error());
    }
    if (a.has("path-steps") && (path == "no" || *steps == 0)) {
        return fail(err, Error{path == "no" ? "--path-steps goes with --path yes"
                                            : "--path-steps must be ≥ 1 (leave it out for the "
                                              "default)"});
    }
    auto r = selectBin(hist.counts(), p);
    if (!r) {
        return fail(err, r.error());
    }
    QJsonObject o;
    o[QStringLiteral("mechanism")] = QStringLiteral("exponential");
    o[QStringLiteral("task")] = QString::fromLatin1(selectionTaskName(p.task));
    if (p.task == SelectionTask::Quantile) {
        o[QStringLiteral("quantile")] = p.quantile;
    }
    o[QStringLiteral("epsilon")] = p.epsilon;
    o[QStringLiteral("neighbouring")] = QString::fromLatin1(neighbouringName(p.neighbouring));
    o[QStringLiteral("guarantee")] = QString::fromStdString(
        "ε = " + formatNumber(p.epsilon) + "-differential privacy under " +
        (p.neighbouring == Neighbouring::Replace ? "replace-one" : "add/remove") +
        " neighbours (exponential mechanism; report-noisy-max with noise scale 1/factor has the "
        "same guarantee)");
    o[QStringLiteral("sensitivity")] = r->utility.sensitivity;
    o[QStringLiteral("monotone")] = r->utility.monotone;
    o[QStringLiteral("factor")] = r->utility.factor;
    o[QStringLiteral("rationale")] = QString::fromStdString(r->utility.rationale);
    o[QStringLiteral("utility")] = toArray(r->utility.utility);
    QJsonArray best;
    for (std::size_t j : r->utility.best) {
        best.append(static_cast<qint64>(j));
    }
    o[QStringLiteral("best")] = best;
    o[QStringLiteral("exact_probability")] = r->exactProbability;
    o[QStringLiteral("exponential")] = toArray(r->exponential);
    o[QStringLiteral("noisy_max_laplace")] = toArray(r->noisyMaxLaplace);
    o[QStringLiteral("noisy_max_exponential")] = toArray(r->noisyMaxExponential);
    o[QStringLiteral("noisy_max_method")] = QStringLiteral("quadrature");
    std::vector<std::string> warnings = r->warnings;
    if (path == "yes") {
        auto m = selectionPathMatrix(hist.counts(), p, static_cast<std::size_t>(*steps));
        if (!m) {
            if (a.has("path-steps")) {
                return fail(err, Error{"--path-steps: " + m.error().message});
            }
            warnings.push_back("no path matrix: " + m.error().message);
        } else {
            QJsonObject pm;
            pm[QStringLiteral("from")] = static_cast<qint64>(m->from);
            pm[QStringLiteral("to")] = static_cast<qint64>(m->to);
            pm[QStringLiteral("description")] = QString::fromStdString(m->description);
            pm[QStringLiteral("steps")] = static_cast<qint64>(m->datasets.size() - 1);
            QJsonArray fromCounts, toCounts;
            for (const auto& d : m->datasets) {
                fromCounts.append(static_cast<qint64>(d[m->from]));
                toCounts.append(static_cast<qint64>(d[m->to]));
            }
            pm[QStringLiteral("from_counts")] = fromCounts;
            pm[QStringLiteral("to_counts")] = toCounts;
            QJsonArray rows;
            for (const auto& row : m->probability) {
                rows.append(toArray(row));
            }
            pm[QStringLiteral("matrix")] = rows;
            pm[QStringLiteral("achieved_epsilon")] = m->achievedEpsilon;
            pm[QStringLiteral("verified")] = m->verified;
            o[QStringLiteral("path")] = pm;
        }
    }
    o[QStringLiteral("warnings")] = toArray(warnings);
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
