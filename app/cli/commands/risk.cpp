#include "app/cli/commands/risk.h"

#include <QJsonArray>
#include <QJsonObject>
#include <charconv>
#include <cmath>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/output.h"
#include "core/choosing/risk.h"

namespace dpx::cli {

namespace {

QJsonArray pairs(const std::vector<XYPoint>& pts) {
    QJsonArray a;
    for (const auto& p : pts) {
        a.append(QJsonArray{p.x, p.y});
    }
    return a;
}

QJsonObject posteriorJson(const PosteriorBound& b) {
    QJsonObject o;
    o[QStringLiteral("max")] = b.posterior;
    o[QStringLiteral("epsilon_effective")] = b.epsilonEffective;
    o[QStringLiteral("failure_probability")] = b.failureProbability;
    o[QStringLiteral("interpretation")] = QString::fromStdString(b.interpretation);
    return o;
}

// LO:HI:COUNT, COUNT log-spaced values.
Expected<std::vector<double>> parseEpsilons(const std::string& text) {
    const auto c1 = text.find(':');
    const auto c2 = c1 == std::string::npos ? c1 : text.find(':', c1 + 1);
    if (c2 == std::string::npos || text.find(':', c2 + 1) != std::string::npos) {
        return Error{"--epsilons: expected LO:HI:COUNT (COUNT log-spaced values), got '" + text +
                     "'"};
    }
    auto lo = parseNumber(text.substr(0, c1), "--epsilons LO");
    if (!lo) {
        return lo.error();
    }
    auto hi = parseNumber(text.substr(c1 + 1, c2 - c1 - 1), "--epsilons HI");
    if (!hi) {
        return hi.error();
    }
    const std::string countText = text.substr(c2 + 1);
    std::size_t count = 0;
    const auto r = std::from_chars(countText.data(), countText.data() + countText.size(), count);
    if (r.ec != std::errc() || r.ptr != countText.data() + countText.size() || count < 1) {
        return Error{"--epsilons: COUNT '" + countText + "' is not a whole number ≥ 1"};
    }
    auto v = logSpaced(*lo, *hi, count);
    if (!v) {
        return Error{"--epsilons: " + v.error().message};
    }
    return v;
}

}  // namespace

int cmdRisk(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args = Args::parse(
        argv, 2, {"epsilon", "delta", "prior", "group", "epsilons", "points", "slack", "mu"});
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    auto eps = a.number("epsilon");
    if (!eps) {
        return fail(err, eps.error());
    }
    auto delta = a.number("delta", 0.0);
    auto prior = a.number("prior", 0.5);
    auto slack = a.number("slack", kDefaultPosteriorSlack);
    for (const auto* v : {&delta, &prior, &slack}) {
        if (!*v) {
            return fail(err, v->error());
        }
    }
    const PrivacyLevel level{*eps, *delta};
    if (auto s = validateUserLevel(level); !s) {
        return fail(err, s.error());
    }
    if (auto s = validatePrior(*prior); !s) {
        return fail(err, s.error());
    }
    if (*delta == 0 && a.has("slack")) {
        return fail(err, Error{"--slack applies to δ > 0 only (pure DP needs no slack)"});
    }
    auto k = a.integer("group", 1);
    if (!k) {
        return fail(err, k.error());
    }
    if (*k < 1 || *k > 1'000'000) {
        return fail(err, Error{"--group: the group size k must be a whole number in [1, 1000000] "
                               "(got " +
                               std::to_string(*k) + ")"});
    }
    auto points = a.integer("points", 21);
    if (!points) {
        return fail(err, points.error());
    }
    if (*points < 2 || *points > 100'000) {
        return fail(err, Error{"--points must be a whole number in [2, 100000] (got " +
                               std::to_string(*points) + ")"});
    }
    const auto n = static_cast<std::size_t>(*points);

    auto post = posteriorBound(*prior, level, *slack);
    if (!post) {
        return fail(err, post.error());
    }
    auto overPrior = posteriorOverPrior(level, n, *slack);
    auto region = testRegionBoundary(level, n);
    auto auc = maxAuc(level);
    if (!overPrior || !region || !auc) {
        return fail(err, !overPrior ? overPrior.error() : !region ? region.error() : auc.error());
    }
    QJsonObject o;
    o[QStringLiteral("epsilon")] = *eps;
    o[QStringLiteral("delta")] = *delta;
    o[QStringLiteral("prior")] = *prior;
    o[QStringLiteral("posterior_max")] = post->posterior;
    o[QStringLiteral("posterior")] = posteriorJson(*post);
    o[QStringLiteral("posterior_over_prior")] = pairs(*overPrior);
    o[QStringLiteral("test_region")] = pairs(*region);
    o[QStringLiteral("max_auc")] = *auc;

    // Group of k: the textbook bound is the one drawn; the chained bound is reported beside it.
    auto group = groupPrivacy(level, static_cast<unsigned>(*k), GroupBound::Textbook);
    auto chain = groupPrivacy(level, static_cast<unsigned>(*k), GroupBound::Chain);
    if (!group || !chain) {
        return fail(err, !group ? group.error() : chain.error());
    }
    auto groupPost = posteriorBound(*prior, group->level(), *slack);
    auto groupRegion = testRegionBoundary(group->level(), n);
    if (!groupPost || !groupRegion) {
        return fail(err, !groupPost ? groupPost.error() : groupRegion.error());
    }
    QJsonObject g;
    g[QStringLiteral("k")] = static_cast<qint64>(*k);
    g[QStringLiteral("epsilon")] = group->epsilon;
    g[QStringLiteral("delta")] = group->delta;
    g[QStringLiteral("delta_chain")] = chain->delta;
    g[QStringLiteral("bound")] = QString::fromLatin1(groupBoundName(group->bound));
    g[QStringLiteral("vacuous")] = group->vacuous();
    g[QStringLiteral("posterior_max")] = groupPost->posterior;
    g[QStringLiteral("posterior")] = posteriorJson(*groupPost);
    g[QStringLiteral("test_region")] = pairs(*groupRegion);
    o[QStringLiteral("group")] = g;

    if (a.has("epsilons")) {
        auto epsilons = parseEpsilons(*a.get("epsilons"));
        if (!epsilons) {
            return fail(err, epsilons.error());
        }
        auto curve = posteriorOverEpsilon(*prior, *delta, *epsilons, *slack);
        if (!curve) {
            return fail(err, curve.error());
        }
        QJsonArray arr;
        for (const auto& p : *curve) {
            QJsonObject e;
            e[QStringLiteral("epsilon")] = p.x;
            e[QStringLiteral("posterior_max")] = p.y;
            arr.append(e);
        }
        o[QStringLiteral("over_epsilon")] = arr;
    }
    if (a.has("mu")) {
        auto mu = a.number("mu");
        if (!mu) {
            return fail(err, mu.error());
        }
        auto curve = gaussianTradeoffCurve(*mu, n);
        if (!curve) {
            return fail(err, Error{"--mu: " + curve.error().message});
        }
        o[QStringLiteral("gaussian_mu")] = *mu;
        o[QStringLiteral("gaussian_tradeoff")] = pairs(*curve);
    }
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
