#include "core/data/privacy_ledger.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <cmath>

#include "core/dataset.h"
#include "core/exact_samplers.h"

namespace dpx::data {

namespace {

constexpr const char* kFormat = "dpx-privacy-ledger";
constexpr int kVersion = 1;

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

// An exact value from "p/q" or decimal text.
Expected<Rational> exactValue(const std::string& text, const std::string& name) {
    const auto slash = text.find('/');
    if (slash == std::string::npos) {
        return parseDecimal(text, name);
    }
    auto p = parseDecimal(text.substr(0, slash), name);
    auto q = parseDecimal(text.substr(slash + 1), name);
    if (!p || !q || !p->isInteger() || !q->isInteger() || q->sign() <= 0) {
        return Error{name + ": '" + text + "' is not a fraction p/q of whole numbers, q > 0"};
    }
    return Rational::fraction(p->numerator(), q->numerator());
}

// The double whose shortest decimal is exactly the value of `text` (what BudgetLedger reads), or
// an error naming the field.
Expected<double> exactDouble(const std::string& text, const std::string& name) {
    auto r = parseDecimal(text, name);
    if (!r) {
        return r.error();
    }
    const double d = r->toDouble();
    auto back = parseDecimal(formatShortest(d), name);
    if (!std::isfinite(d) || !back || *back != *r) {
        return Error{name + ": '" + text +
                     "' has more significant digits than the ledger can hold exactly (at most 15)"};
    }
    return d;
}

// The smallest double whose shortest decimal is ≥ r (r ≥ 0): a conservative ρ for the ledger.
double doubleAtLeast(const Rational& r) {
    double d = r.toDouble();
    for (int i = 0; i < 8; ++i) {
        auto back = parseDecimal(formatShortest(d));
        if (back && *back >= r) {
            return d;
        }
        d = std::nextafter(d, HUGE_VAL);
    }
    return d;
}

QJsonObject releaseObject(const LedgerRelease& r) {
    QJsonObject o;
    o[QStringLiteral("time")] = qs(r.time);
    o[QStringLiteral("mechanism")] = qs(r.mechanism);
    o[QStringLiteral("epsilon")] = qs(r.epsilon);
    o[QStringLiteral("delta")] = qs(r.delta);
    o[QStringLiteral("rho")] = qs(r.rho);
    QJsonArray files;
    for (std::size_t i = 0; i < r.files.size(); ++i) {
        QJsonObject f;
        f[QStringLiteral("path")] = qs(r.files[i]);
        f[QStringLiteral("sha256")] = qs(r.sha256[i]);
        files.append(f);
    }
    o[QStringLiteral("files")] = files;
    return o;
}

QByteArray checksumOf(QJsonObject o) {
    o.remove(QStringLiteral("sha256"));
    return QCryptographicHash::hash(QJsonDocument(o).toJson(QJsonDocument::Compact),
                                    QCryptographicHash::Sha256)
        .toHex();
}

Expected<std::string> stringField(const QJsonObject& o, const char* key, const std::string& where) {
    const QJsonValue v = o.value(QLatin1String(key));
    if (!v.isString()) {
        return Error{where + ": '" + key + "' is missing or not a string"};
    }
    return v.toString().toStdString();
}

}  // namespace

Status LedgerRelease::validate() const {
    if (time.empty() || mechanism.empty()) {
        return Error{"ledger release: time and mechanism must be set"};
    }
    if (files.size() != sha256.size()) {
        return Error{"ledger release: one SHA-256 per file"};
    }
    auto c = ledgerCharge(*this);
    if (!c) {
        return c.error();
    }
    return okStatus();
}

Expected<BudgetCharge> ledgerCharge(const LedgerRelease& release) {
    auto eps = exactDouble(release.epsilon, "epsilon");
    if (!eps) {
        return eps.error();
    }
    auto delta = exactDouble(release.delta.empty() ? "0" : release.delta, "delta");
    if (!delta) {
        return delta.error();
    }
    auto rho = exactValue(release.rho, "rho");
    if (!rho) {
        return rho.error();
    }
    if (rho->sign() < 0) {
        return Error{"rho: must be ≥ 0 (got " + release.rho + ")"};
    }
    BudgetCharge c{release.mechanism + " at " + release.time, *eps, *delta, doubleAtLeast(*rho)};
    if (auto v = c.validate(); !v) {
        return v.error();
    }
    return c;
}

Expected<PrivacyLedger> PrivacyLedger::create(std::string dataset, const std::string& totalEpsilon,
                                              const std::string& totalDelta,
                                              Composition composition) {
    if (dataset.empty()) {
        return Error{"ledger: the dataset description is empty"};
    }
    auto eps = exactDouble(totalEpsilon, "budget epsilon");
    if (!eps) {
        return eps.error();
    }
    const std::string deltaText = totalDelta.empty() ? "0" : totalDelta;
    auto delta = exactDouble(deltaText, "budget delta");
    if (!delta) {
        return delta.error();
    }
    if (composition == Composition::Zcdp && *delta <= 0) {
        return Error{"budget delta: zCDP composition needs a total δ > 0 (e.g. --budget 1,1e-6)"};
    }
    auto ledger = BudgetLedger::create(BudgetTotal{*eps, *delta}, composition);
    if (!ledger) {
        return Error{"budget: " + ledger.error().message};
    }
    return PrivacyLedger(std::move(dataset), totalEpsilon, deltaText, std::move(ledger).value());
}

Status PrivacyLedger::fits(const LedgerRelease& release) const {
    auto c = ledgerCharge(release);
    if (!c) {
        return c.error();
    }
    auto ok = budget_.fits(*c);
    if (ok) {
        return okStatus();
    }
    const BudgetUsage u = budget_.usage();
    std::string left =
        composition() == Composition::Basic
            ? "spent so far ε = " + u.epsilonSpentExact + ", δ = " + u.deltaSpentExact +
                  " of the total (" + totalEpsilon_ + ", " + totalDelta_ +
                  "); left ε = " + formatShortest(u.epsilonRemaining) +
                  ", δ = " + formatShortest(u.deltaRemaining)
            : "spent so far ρ = " + formatShortest(u.rhoSpent) +
                  " of ρ = " + formatShortest(u.rhoBudget) + " (the total (" + totalEpsilon_ +
                  ", " + totalDelta_ + ") under zCDP); left ρ = " + formatShortest(u.rhoRemaining);
    return Error{"release refused: it asks ε = " + release.epsilon + ", δ = " + release.delta +
                 " (ρ = " + release.rho + ") under " + compositionName(composition()) +
                 " composition, which exceeds the remaining budget; " + left + ". (" +
                 ok.error().message + ")"};
}

Status PrivacyLedger::append(LedgerRelease release) {
    if (auto v = release.validate(); !v) {
        return v;
    }
    if (auto f = fits(release); !f) {
        return f;
    }
    if (auto s = budget_.charge(ledgerCharge(release).value()); !s) {
        return s;
    }
    releases_.push_back(std::move(release));
    return okStatus();
}

std::string PrivacyLedger::toJson() const {
    QJsonObject o;
    o[QStringLiteral("format")] = QLatin1String(kFormat);
    o[QStringLiteral("version")] = kVersion;
    o[QStringLiteral("dataset")] = qs(dataset_);
    o[QStringLiteral("composition")] = QLatin1String(compositionName(composition()));
    QJsonObject total;
    total[QStringLiteral("epsilon")] = qs(totalEpsilon_);
    total[QStringLiteral("delta")] = qs(totalDelta_);
    o[QStringLiteral("total")] = total;
    QJsonArray rel;
    for (const auto& r : releases_) {
        rel.append(releaseObject(r));
    }
    o[QStringLiteral("releases")] = rel;
    o[QStringLiteral("sha256")] = QString::fromLatin1(checksumOf(o));
    return QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
}

Expected<PrivacyLedger> PrivacyLedger::fromJson(const std::string& json,
                                                const std::string& origin) {
    QJsonParseError perr{};
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &perr);
    if (perr.error != QJsonParseError::NoError || !doc.isObject()) {
        return Error{origin + ": not a JSON object (" + perr.errorString().toStdString() +
                     "); the ledger is corrupted, refusing to use or reset it"};
    }
    const QJsonObject o = doc.object();
    if (o.value(QStringLiteral("format")).toString() != QLatin1String(kFormat)) {
        return Error{origin + ": not a dpx privacy ledger (\"format\" is not \"" + kFormat +
                     "\"); refusing to use or overwrite it"};
    }
    if (o.value(QStringLiteral("version")).toInt(-1) != kVersion) {
        return Error{origin + ": ledger version " +
                     std::to_string(o.value(QStringLiteral("version")).toInt(-1)) +
                     " is not supported (this program reads version 1)"};
    }
    if (o.value(QStringLiteral("sha256")).toString().toLatin1() != checksumOf(o)) {
        return Error{origin +
                     ": the checksum does not match the content: the ledger was edited or "
                     "corrupted; refusing to use it (restore it from a backup; it is never reset "
                     "automatically)"};
    }
    auto dataset = stringField(o, "dataset", origin);
    auto comp = stringField(o, "composition", origin);
    if (!dataset || !comp) {
        return dataset ? comp.error() : dataset.error();
    }
    auto composition = compositionFromName(*comp);
    if (!composition) {
        return Error{origin + ": " + composition.error().message};
    }
    const QJsonObject total = o.value(QStringLiteral("total")).toObject();
    auto te = stringField(total, "epsilon", origin + " total");
    auto td = stringField(total, "delta", origin + " total");
    if (!te || !td) {
        return te ? td.error() : te.error();
    }
    auto ledger = create(*dataset, *te, *td, *composition);
    if (!ledger) {
        return Error{origin + ": " + ledger.error().message};
    }
    const QJsonValue rel = o.value(QStringLiteral("releases"));
    if (!rel.isArray()) {
        return Error{origin + ": 'releases' is missing or not an array"};
    }
    int index = 0;
    for (const QJsonValue& v : rel.toArray()) {
        ++index;
        const std::string where = origin + " release " + std::to_string(index);
        const QJsonObject r = v.toObject();
        LedgerRelease lr;
        for (auto [key, field] :
             {std::pair{"time", &lr.time}, std::pair{"mechanism", &lr.mechanism},
              std::pair{"epsilon", &lr.epsilon}, std::pair{"delta", &lr.delta},
              std::pair{"rho", &lr.rho}}) {
            auto s = stringField(r, key, where);
            if (!s) {
                return s.error();
            }
            *field = *s;
        }
        for (const QJsonValue& f : r.value(QStringLiteral("files")).toArray()) {
            lr.files.push_back(f.toObject().value(QStringLiteral("path")).toString().toStdString());
            lr.sha256.push_back(
                f.toObject().value(QStringLiteral("sha256")).toString().toStdString());
        }
        if (auto s = ledger->append(std::move(lr)); !s) {
            return Error{where + ": " + s.error().message};
        }
    }
    return ledger;
}

Expected<PrivacyLedger> PrivacyLedger::load(const std::string& path) {
    QFile f(qs(path));
    if (!f.open(QIODevice::ReadOnly)) {
        return Error{path + ": cannot read the ledger (" + f.errorString().toStdString() + ")"};
    }
    if (f.size() > (std::int64_t{64} << 20)) {
        return Error{path + ": larger than 64 MiB, not a ledger this program wrote"};
    }
    return fromJson(f.readAll().toStdString(), path);
}

}  // namespace dpx::data
