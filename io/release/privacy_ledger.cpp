#include "io/release/privacy_ledger.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "core/accounting/privacy_loss.h"
#include "core/base/validation.h"
#include "core/histogram/dataset.h"
#include "core/release/exact_samplers.h"
#include "core/release/release.h"

namespace dpx::data {

namespace {

constexpr const char* kFormat = "dpx-privacy-ledger";
constexpr int kVersion = 2;     // 1: no release states (every release published)
constexpr int kPldVersion = 3;  // 2 + composition "pld": the "pld" object and each "loss"

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

// The double nearest r, moved to the safe side: ≥ r (doubleUp) or ≤ r (doubleDown).
double doubleUp(const Rational& r) {
    double d = r.toDouble();
    auto back = Rational::fromDouble(d);
    if (back && *back < r) {
        d = std::nextafter(d, HUGE_VAL);
    }
    return d;
}
double doubleDown(const Rational& r) {
    double d = r.toDouble();
    auto back = Rational::fromDouble(d);
    if (back && *back > r) {
        d = std::nextafter(d, -HUGE_VAL);
    }
    return d;
}

constexpr const char* kLossKinds[] = {"discrete-laplace", "discrete-gaussian", "pure-dp"};

// The mechanism the PLD accountant composes for a recorded loss, every parameter rounded to the
// side of more privacy loss (ε up, σ down), so the double arithmetic never under-reports.
Expected<accounting::AccountedMechanism> accountedMechanism(const LedgerLoss& loss) {
    if (auto v = loss.validate(); !v) {
        return v.error();
    }
    const Rational value = exactValue(loss.parameter, "loss parameter").value();
    if (loss.kind == "discrete-laplace") {
        // ε per bin = Δ/t, t = p/q: Δq/p.
        auto eps =
            Rational::fraction(BigInt(loss.sensitivity) * value.denominator(), value.numerator());
        return accounting::geometricLoss(doubleUp(*eps), static_cast<double>(loss.sensitivity),
                                         loss.count);
    }
    if (loss.kind == "discrete-gaussian") {
        const double sigma = std::nextafter(std::sqrt(doubleDown(value)), 0.0);
        return accounting::discreteGaussianLoss(sigma, static_cast<double>(loss.sensitivity),
                                                loss.count);
    }
    return accounting::randomizedResponseLoss(doubleUp(value), 2, loss.count);
}

QJsonObject releaseObject(const LedgerRelease& r, bool withLoss) {
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
        if (r.state == ReleaseState::Pending && i < r.temps.size()) {
            f[QStringLiteral("temp")] = qs(r.temps[i]);
        }
        files.append(f);
    }
    o[QStringLiteral("files")] = files;
    o[QStringLiteral("state")] = QLatin1String(releaseStateName(r.state));
    if (r.state == ReleaseState::Pending) {
        o[QStringLiteral("overwrite")] = r.overwrite;
    }
    if (!r.note.empty()) {
        o[QStringLiteral("note")] = qs(r.note);
    }
    if (withLoss) {
        QJsonObject loss;
        loss[QStringLiteral("kind")] = qs(r.loss.kind);
        loss[QStringLiteral("parameter")] = qs(r.loss.parameter);
        loss[QStringLiteral("sensitivity")] = static_cast<qint64>(r.loss.sensitivity);
        loss[QStringLiteral("count")] = static_cast<qint64>(r.loss.count);
        o[QStringLiteral("loss")] = loss;
    }
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

Rational difference(const Rational& a, const Rational& b) {
    return Rational::fraction(a.numerator() * b.denominator() - b.numerator() * a.denominator(),
                              a.denominator() * b.denominator())
        .value();
}

// "p/q" or decimal text as an exact value; 0 for anything unreadable (never on a path that
// decides whether a release fits: display only).
Rational exactOrZero(const std::string& text) {
    auto r = exactValue(text.empty() ? "0" : text, "value");
    return r ? *r : Rational{};
}

// The decimal digits of ⌊value·10^k⌋ / 10^k written out, value ≥ 0.
std::string decimalWithDigits(const Rational& value, int digits, bool roundToNearest) {
    if (value.sign() <= 0) {
        return "0";
    }
    // Scale so that exactly `digits` digits sit before the point: find e with
    // 10^(digits−1) ≤ value·10^e < 10^digits.
    BigInt num = value.numerator();
    BigInt den = value.denominator();
    int e = 0;
    const BigInt lo = boost::multiprecision::pow(BigInt(10), digits - 1);
    const BigInt hi = lo * 10;
    while (num < lo * den) {
        num *= 10;
        ++e;
    }
    while (num >= hi * den) {
        den *= 10;
        --e;
    }
    BigInt q = num / den;
    if (roundToNearest && (num - q * den) * 2 >= den) {
        q += 1;
        if (q == hi) {  // 999.96 → 1000: one digit more, drop it
            q /= 10;
            --e;
        }
    }
    std::string digitsText = q.str();
    // value ≈ digitsText · 10^(−e)
    std::string out;
    if (e <= 0) {
        out = digitsText + std::string(static_cast<std::size_t>(-e), '0');
    } else if (static_cast<std::size_t>(e) < digitsText.size()) {
        out = digitsText.substr(0, digitsText.size() - static_cast<std::size_t>(e)) + "." +
              digitsText.substr(digitsText.size() - static_cast<std::size_t>(e));
    } else {
        out = "0." + std::string(static_cast<std::size_t>(e) - digitsText.size(), '0') + digitsText;
    }
    if (out.find('.') != std::string::npos) {
        while (out.back() == '0') {
            out.pop_back();
        }
        if (out.back() == '.') {
            out.pop_back();
        }
    }
    // Scientific notation where printf's %g (formatNumber) would use it: exponent < −4 or ≥ the
    // number of digits.
    if (const int exponent10 = digits - 1 - e; exponent10 < -4 || exponent10 >= digits) {
        std::string mantissa = digitsText.substr(0, 1);
        std::string rest = digitsText.substr(1);
        while (!rest.empty() && rest.back() == '0') {
            rest.pop_back();
        }
        if (!rest.empty()) {
            mantissa += "." + rest;
        }
        // The exponent as printf's %g writes it (two digits at least), like formatNumber.
        const int exponent = static_cast<int>(digitsText.size()) - 1 - e;
        const std::string magnitude = std::to_string(exponent < 0 ? -exponent : exponent);
        out = mantissa + (exponent < 0 ? "e-" : "e+") +
              (magnitude.size() < 2 ? "0" + magnitude : magnitude);
    }
    return out;
}

std::string errnoText(int e) {
    return std::strerror(e);
}

const char* fileKind(mode_t mode) {
    if (S_ISDIR(mode)) {
        return "a directory";
    }
    if (S_ISFIFO(mode)) {
        return "a FIFO (named pipe)";
    }
    if (S_ISCHR(mode) || S_ISBLK(mode)) {
        return "a device";
    }
    if (S_ISSOCK(mode)) {
        return "a socket";
    }
    return "not a regular file";
}

}  // namespace

std::string directoryOf(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) {
        return ".";
    }
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string baseNameOf(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

const char* releaseStateName(ReleaseState state) {
    switch (state) {
        case ReleaseState::Published:
            return "published";
        case ReleaseState::Pending:
            return "pending";
        case ReleaseState::NotPublished:
            return "not published";
    }
    return "published";
}

std::string decimalAtMost(const Rational& value, int digits) {
    return decimalWithDigits(value, digits, false);
}

std::string decimalNear(const Rational& value, int digits) {
    return decimalWithDigits(value, digits, true);
}

Expected<LedgerLocation> resolveLedgerPath(const std::string& path) {
    if (path.empty()) {
        return Error{"ledger: no path given"};
    }
    const std::string dir = directoryOf(path);
    char buffer[PATH_MAX];
    if (::realpath(dir.c_str(), buffer) == nullptr) {
        return Error{path + ": the ledger's directory " + dir + " cannot be used (" +
                     errnoText(errno) + ")"};
    }
    std::string real = std::string(buffer);
    real = (real == "/" ? "" : real) + "/" + baseNameOf(path);
    LedgerLocation loc;
    struct stat st {};
    if (::lstat(real.c_str(), &st) != 0) {
        if (errno != ENOENT) {
            return Error{path + ": cannot examine the ledger (" + errnoText(errno) + ")"};
        }
        loc.path = real;
        return loc;
    }
    if (S_ISLNK(st.st_mode)) {
        // Follow the link to the file it names, so that the lock and the writes belong to that
        // file: replacing the link by a regular file would make a second ledger.
        if (::realpath(real.c_str(), buffer) == nullptr) {
            return Error{path + ": a symbolic link to a file that does not exist (" +
                         errnoText(errno) + "); refusing to use it as a ledger"};
        }
        real = buffer;
        if (::lstat(real.c_str(), &st) != 0) {
            return Error{path + ": cannot examine the ledger " + real + " (" + errnoText(errno) +
                         ")"};
        }
    }
    if (!S_ISREG(st.st_mode)) {
        return Error{path + ": " + fileKind(st.st_mode) +
                     ", not a regular file; a ledger must be a regular file"};
    }
    loc.path = real;
    loc.exists = true;
    loc.readOnly =
        (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || ::access(real.c_str(), W_OK) != 0;
    return loc;
}

Status LedgerLoss::validate() const {
    bool known = false;
    for (const char* k : kLossKinds) {
        known = known || kind == k;
    }
    if (!known) {
        return Error{"loss kind: '" + kind +
                     "' is not one of discrete-laplace, discrete-gaussian, pure-dp"};
    }
    auto value = exactValue(parameter, "loss parameter");
    if (!value) {
        return value.error();
    }
    if (value->sign() <= 0) {
        return Error{"loss parameter: must be > 0 (got " + parameter + ")"};
    }
    if (sensitivity < 1 || sensitivity > 2 * kMaxReleaseCap) {
        return Error{"loss sensitivity: must be a whole number in [1, " +
                     std::to_string(2 * kMaxReleaseCap) + "] (got " + std::to_string(sensitivity) +
                     ")"};
    }
    if (count < 1 || count > 2) {
        return Error{"loss count: must be 1 or 2 bins (got " + std::to_string(count) + ")"};
    }
    if (kind == "pure-dp" && count != 1) {
        return Error{"loss count: a pure-dp loss is one use (got " + std::to_string(count) + ")"};
    }
    if (kind != "discrete-laplace" && kind != "pure-dp" && sensitivity != 1) {
        return Error{
            "loss sensitivity: the discrete Gaussian is recorded for a change of 1 per "
            "bin (got " +
            std::to_string(sensitivity) + ")"};
    }
    return okStatus();
}

Expected<accounting::AccountedMechanism> ledgerAccountedMechanism(const LedgerLoss& loss) {
    return accountedMechanism(loss);
}

Expected<LedgerLoss> ledgerLossFor(const std::string& mechanism, const std::string& epsilonExact,
                                   const std::string& sigma2, const std::string& neighbouring,
                                   std::int64_t contributionCap) {
    if (neighbouring != "add-remove" && neighbouring != "replace") {
        return Error{"PLD ledger: unknown neighbouring relation '" + neighbouring + "'"};
    }
    if (contributionCap < 1 || contributionCap > kMaxReleaseCap) {
        return Error{"PLD ledger: contribution cap " + std::to_string(contributionCap) +
                     " is out of range"};
    }
    // Add/remove with one row per person changes one bin by 1; replace moves a row from one bin
    // to another: two bins by 1 each, independent noise in each.
    const std::int64_t bins = neighbouring == "replace" ? 2 : 1;
    auto eps = exactValue(epsilonExact, "epsilon");
    if (!eps) {
        return eps.error();
    }
    if (eps->sign() <= 0) {
        return Error{"epsilon: must be > 0 (got " + epsilonExact + ")"};
    }
    LedgerLoss loss;
    if (mechanism == "discrete-laplace" && contributionCap == 1) {
        // t = Δ1/ε with Δ1 = bins.
        loss.kind = "discrete-laplace";
        loss.parameter =
            Rational::fraction(BigInt(bins) * eps->denominator(), eps->numerator())->toString();
        loss.count = bins;
        return loss;
    }
    // "pure-dp": any ε-DP release whose loss is not modelled more finely (a release through a
    // designed strategy, issue #23, spreads one person's change over many rows).
    if (mechanism == "discrete-laplace" || mechanism == "geometric-matrix" ||
        mechanism == "pure-dp") {
        loss.kind = "pure-dp";
        loss.parameter = eps->toString();
        return loss;
    }
    if (mechanism == "discrete-gaussian") {
        if (contributionCap != 1) {
            return Error{
                "a PLD ledger accounts the discrete Gaussian for a contribution cap of 1 only "
                "(with a cap of " +
                std::to_string(contributionCap) +
                " its exact privacy loss depends on how a person's rows spread over the bins); "
                "use a ledger of basic or zcdp composition, which counts its ρ"};
        }
        auto s2 = exactValue(sigma2, "sigma^2");
        if (!s2) {
            return s2.error();
        }
        loss.kind = "discrete-gaussian";
        loss.parameter = s2->toString();
        loss.count = bins;
        return loss;
    }
    return Error{"PLD ledger: no privacy loss is known for the mechanism '" + mechanism + "'"};
}

Status LedgerRelease::validate() const {
    if (time.empty() || mechanism.empty()) {
        return Error{"ledger release: time and mechanism must be set"};
    }
    if (files.size() != sha256.size()) {
        return Error{"ledger release: one SHA-256 per file"};
    }
    if (state == ReleaseState::Pending ? temps.size() != files.size() : !temps.empty()) {
        return Error{
            "ledger release: a pending release has one temporary file per file, a "
            "settled one none"};
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
                                              Composition composition,
                                              const std::string& pldInterval) {
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
    std::string interval;
    if (composition == Composition::Pld) {
        if (*delta <= 0) {
            return Error{
                "budget delta: the PLD accountant needs a total δ > 0 (e.g. --budget 1,1e-6); "
                "a pure ε budget is composed exactly by basic composition"};
        }
        auto h = exactDouble(pldInterval, "PLD interval");
        if (!h) {
            return h.error();
        }
        if (!(*h >= 1e-6 && *h <= 0.01)) {
            return Error{"PLD interval: must be in [1e-6, 0.01] (got " + pldInterval + ")"};
        }
        interval = pldInterval;
    }
    // PLD: a basic ledger of the total checks each release's (ε, δ, ρ) text only.
    auto ledger =
        BudgetLedger::create(BudgetTotal{*eps, *delta},
                             composition == Composition::Pld ? Composition::Basic : composition);
    if (!ledger) {
        return Error{"budget: " + ledger.error().message};
    }
    return PrivacyLedger(std::move(dataset), totalEpsilon, deltaText, std::move(ledger).value(),
                         composition, interval);
}

Expected<double> PrivacyLedger::pldEpsilon(const LedgerRelease* extra) const {
    auto pld = pldOnlyEpsilon(extra);
    if (!pld) {
        return pld;
    }
    // Basic composition bounds the same releases too: (Σε_i, Σδ_i), exact sums of the recorded
    // decimals. When Σδ_i ≤ δ_T it gives (Σε_i, δ_T) and the smaller of the two bounds is the
    // answer (a single release of ε = the total must fit, however the grid rounds).
    Rational eps, delta;
    auto add = [](const Rational& a, const Rational& b) {
        return Rational::fraction(a.numerator() * b.denominator() + b.numerator() * a.denominator(),
                                  a.denominator() * b.denominator())
            .value();
    };
    for (std::size_t i = 0; i <= releases_.size(); ++i) {
        const LedgerRelease* r = i < releases_.size() ? &releases_[i] : extra;
        if (r == nullptr) {
            break;
        }
        eps = add(eps, exactOrZero(r->epsilon));
        delta = add(delta, exactOrZero(r->delta));
    }
    double bound = delta <= exactOrZero(totalDelta_) ? std::min(*pld, doubleUp(eps)) : *pld;
    if (pldRecordedSpent_ > 0) {
        // The file's recorded ε was more pessimistic than this run's recomputation (fromJson): it
        // stays the authority, so the recorded releases count for it, and a further release for
        // its composition plus the recorded excess (anything ≥ the recomputation is a valid bound).
        bound = extra == nullptr && releases_.size() == pldRecordedCount_
                    ? std::max(bound, pldRecordedSpent_)
                    : std::nextafter(bound + pldExcess_, 1e300);
    }
    return bound;
}

Expected<double> PrivacyLedger::pldOnlyEpsilon(const LedgerRelease* extra) const {
    std::vector<const LedgerRelease*> all;
    for (const auto& r : releases_) {
        all.push_back(&r);
    }
    if (extra != nullptr) {
        all.push_back(extra);
    }
    std::vector<accounting::AccountedMechanism> mechs;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const LedgerRelease& r = *all[i];
        const std::string which = i < releases_.size() ? "release " + std::to_string(i + 1)
                                                       : std::string("the new release");
        if (r.loss.kind.empty()) {
            return Error{r.lossError.empty()
                             ? which + ": no privacy loss recorded for the PLD accountant"
                             : r.lossError};
        }
        auto m = accountedMechanism(r.loss);
        if (!m) {
            return Error{which + ": " + m.error().message};
        }
        mechs.push_back(*m);
    }
    if (mechs.empty()) {
        return 0.0;
    }
    accounting::PldOptions options;
    options.interval = exactDouble(pldInterval_, "PLD interval").value();
    auto pld = accounting::PrivacyLossDistribution::compose(mechs, options,
                                                            accounting::Rounding::Pessimistic);
    if (!pld) {
        return pld.error();
    }
    return pld->epsilon(exactDouble(totalDelta_, "delta").value());
}

Status PrivacyLedger::fitsPld(const LedgerRelease& release) const {
    auto with = pldEpsilon(&release);
    if (!with) {
        return Error{"release refused: " + with.error().message};
    }
    const Rational total = exactOrZero(totalEpsilon_);
    if (*with <= doubleDown(total)) {
        return okStatus();
    }
    const BudgetUsage u = usage();
    return Error{
        "release refused: with it the PLD accountant (Koskela, Jälkö & Honkela 2020; "
        "pessimistic grid h = " +
        pldInterval_ + "; or basic composition where smaller) gives ε = " + formatNumber(*with) +
        " at δ = " + totalDelta_ + ", above the total ε = " + totalEpsilon_ +
        "; spent so far ε = " + formatNumber(u.epsilonSpent) + " at δ = " + totalDelta_ +
        "; a further pure ε-DP release fits up to ε = " +
        decimalAtMost(*Rational::fromDouble(std::max(0.0, u.epsilonRemaining))) + "."};
}

BudgetUsage PrivacyLedger::usage() const {
    if (composition_ != Composition::Pld) {
        return budget_.usage();
    }
    if (!pldUsageCache_) {
        pldUsageCache_ = pldUsage();
    }
    return *pldUsageCache_;
}

BudgetUsage PrivacyLedger::pldUsage() const {
    BudgetUsage u;
    u.composition = Composition::Pld;
    const double totalEps = doubleDown(exactOrZero(totalEpsilon_));
    // What the recomposition may reach: less the recorded excess when the file's ε is the
    // authority (pldExcess_, fromJson); the check with fits() below includes it.
    const double target = std::max(0.0, totalEps - pldExcess_);
    const double totalDelta = exactDouble(totalDelta_, "delta").value();
    const double h = exactDouble(pldInterval_, "PLD interval").value();
    u.deltaSpent = releases_.empty() ? 0.0 : totalDelta;
    u.deltaRemaining = totalDelta;
    auto spent = pldEpsilon();
    if (!spent) {
        // Unreachable for a ledger that loaded; counted as everything spent.
        u.epsilonSpent = totalEps;
        return u;
    }
    u.epsilonSpent = *spent;
    // The composed loss so far, and δ at the total ε with one more binary randomized response of
    // ε' (the dominating pair of every ε'-DP mechanism): its two atoms ±ε', put on the grid as
    // the accountant puts them (rounded up), shift the composed loss, so
    // δ(ε_T) = p₊·δ_D(ε_T − a₊) + p₋·δ_D(ε_T − a₋), p₊ = e^{ε'}/(1+e^{ε'}), p₋ = 1/(1+e^{ε'}).
    std::vector<accounting::AccountedMechanism> mechs;
    for (const auto& r : releases_) {
        mechs.push_back(accountedMechanism(r.loss).value());
    }
    accounting::PldOptions options;
    options.interval = h;
    auto pld = accounting::PrivacyLossDistribution::compose(mechs, options,
                                                            accounting::Rounding::Pessimistic);
    if (!pld) {
        return u;
    }
    auto deltaWith = [&](double e) {
        const double up = std::ceil(e / h) * h, down = std::ceil(-e / h) * h;
        const double pUp = 1 / (1 + std::exp(-e)), pDown = 1 / (1 + std::exp(e));
        return pUp * pld->delta(target - up) + pDown * pld->delta(target - down);
    };
    if (deltaWith(0) > totalDelta) {
        return u;
    }
    double lo = 0, hi = std::min(100.0, 2 * target + 1);
    if (deltaWith(hi) <= totalDelta) {
        lo = hi;
    }
    for (int i = 0; i < 60 && hi - lo > 1e-9 * hi; ++i) {
        const double mid = lo + (hi - lo) / 2;
        (deltaWith(mid) <= totalDelta ? lo : hi) = mid;
    }
    // Six digits rounded down, then checked with fits() itself (whose search for ε(δ) may end a
    // little above): stepped down until it fits, so a figure shown can always be spent.
    // Basic composition's rest, where it is larger (few releases): total − Σε_i.
    double sumEps = 0, sumDelta = 0;
    for (const auto& r : releases_) {
        sumEps += exactOrZero(r.epsilon).toDouble();
        sumDelta += exactOrZero(r.delta).toDouble();
    }
    if (sumDelta <= totalDelta && pldExcess_ == 0) {
        lo = std::max(lo, totalEps - sumEps);
    }
    LedgerRelease probe;
    probe.loss.kind = "pure-dp";
    probe.delta = "0";
    Rational candidate = *Rational::fromDouble(std::max(0.0, lo));
    for (int attempt = 0; attempt < 40 && candidate.sign() > 0; ++attempt) {
        probe.loss.parameter = decimalAtMost(candidate);
        probe.epsilon = probe.loss.parameter;
        if (probe.loss.parameter == "0") {
            break;
        }
        auto with = pldEpsilon(&probe);
        if (with && *with <= totalEps) {
            u.epsilonRemaining = parseDecimal(probe.loss.parameter)->toDouble();
            return u;
        }
        candidate = *Rational::fromDouble(parseDecimal(probe.loss.parameter)->toDouble() *
                                          (1 - std::ldexp(1.0, attempt - 20)));
    }
    return u;
}

Status PrivacyLedger::fits(const LedgerRelease& release) const {
    auto c = ledgerCharge(release);
    if (!c) {
        return c.error();
    }
    if (composition_ == Composition::Pld) {
        return fitsPld(release);
    }
    auto ok = budget_.fits(*c);
    if (ok) {
        return okStatus();
    }
    // Decimals for people (the exact fractions are in the file); what is left rounded down, so
    // a figure shown here can be spent.
    const BudgetUsage u = budget_.usage();
    const std::string rho = decimalNear(exactOrZero(release.rho));
    std::string left = composition() == Composition::Basic
                           ? "spent so far ε = " + decimalNear(exactOrZero(u.epsilonSpentExact)) +
                                 ", δ = " + decimalNear(exactOrZero(u.deltaSpentExact)) +
                                 " of the total (" + totalEpsilon_ + ", " + totalDelta_ +
                                 "); left ε = " + decimalAtMost(epsilonRemainingExact()) +
                                 ", δ = " + decimalAtMost(deltaRemainingExact())
                           : "spent so far ρ = " + formatNumber(u.rhoSpent) +
                                 " of ρ = " + formatNumber(u.rhoBudget) + " (the total (" +
                                 totalEpsilon_ + ", " + totalDelta_ + ") under zCDP); left ρ = " +
                                 decimalAtMost(*Rational::fromDouble(u.rhoRemaining));
    return Error{"release refused: it asks ε = " + release.epsilon + ", δ = " + release.delta +
                 " (ρ = " + rho + ") under " + compositionName(composition()) +
                 " composition, which exceeds the remaining budget; " + left + "."};
}

Rational PrivacyLedger::epsilonRemainingExact() const {
    if (composition() != Composition::Basic) {
        auto r = Rational::fromDouble(std::max(0.0, usage().epsilonRemaining));
        return r ? *r : Rational{};
    }
    Rational left = difference(exactOrZero(totalEpsilon_), exactOrZero(usage().epsilonSpentExact));
    return left.sign() < 0 ? Rational{} : left;
}

Rational PrivacyLedger::deltaRemainingExact() const {
    if (composition() != Composition::Basic) {
        return exactOrZero(totalDelta_);
    }
    Rational left = difference(exactOrZero(totalDelta_), exactOrZero(usage().deltaSpentExact));
    return left.sign() < 0 ? Rational{} : left;
}

std::size_t PrivacyLedger::pendingCount() const {
    std::size_t n = 0;
    for (const auto& r : releases_) {
        n += r.state == ReleaseState::Pending ? 1 : 0;
    }
    return n;
}

Status PrivacyLedger::settle(std::size_t index, ReleaseState state, std::string note) {
    if (index >= releases_.size() || releases_[index].state != ReleaseState::Pending) {
        return Error{"ledger: release " + std::to_string(index + 1) + " is not pending"};
    }
    releases_[index].state = state;
    releases_[index].note = std::move(note);
    releases_[index].temps.clear();
    releases_[index].overwrite = false;
    return okStatus();
}

Status PrivacyLedger::withdrawPending(std::size_t index) {
    if (index >= releases_.size() || releases_[index].state != ReleaseState::Pending) {
        return Error{"ledger: release " + std::to_string(index + 1) + " is not pending"};
    }
    if (composition_ != Composition::Pld) {
        if (auto s = budget_.remove(index); !s) {
            return s;
        }
    }
    pldUsageCache_.reset();
    releases_.erase(releases_.begin() + static_cast<std::ptrdiff_t>(index));
    return okStatus();
}

Status PrivacyLedger::append(LedgerRelease release) {
    if (auto v = release.validate(); !v) {
        return v;
    }
    if (auto f = fits(release); !f) {
        return f;
    }
    if (composition_ != Composition::Pld) {
        if (auto s = budget_.charge(ledgerCharge(release).value()); !s) {
            return s;
        }
    }
    pldUsageCache_.reset();
    releases_.push_back(std::move(release));
    return okStatus();
}

Expected<PrivacyLedger> PrivacyLedger::prefix(std::size_t count) const {
    if (count > releases_.size()) {
        return Error{"ledger: it holds " + std::to_string(releases_.size()) + " releases, not " +
                     std::to_string(count)};
    }
    if (composition_ == Composition::Pld) {
        // The releases are composed on demand (budget_ holds none of them, as after fromJson):
        // a copy that keeps the recorded ε and its excess, so that pldEpsilon() charges a prefix
        // its composition plus the excess, and the whole ledger the recorded ε.
        PrivacyLedger p = *this;
        p.releases_.resize(count);
        p.pldUsageCache_.reset();
        if (count == 0) {
            p.pldRecordedSpent_ = 0;
            p.pldRecordedCount_ = 0;
            p.pldExcess_ = 0;
            p.loadWarning_.clear();
        }
        return p;
    }
    auto p = create(dataset_, totalEpsilon_, totalDelta_, composition_);
    if (!p) {
        return p.error();
    }
    for (std::size_t i = 0; i < count; ++i) {
        if (auto s = p->append(releases_[i]); !s) {
            return Error{"ledger: recomposing release " + std::to_string(i + 1) + ": " +
                         s.error().message};
        }
    }
    return p;
}

std::string PrivacyLedger::toJson() const {
    QJsonObject o;
    o[QStringLiteral("format")] = QLatin1String(kFormat);
    const bool pld = composition_ == Composition::Pld;
    o[QStringLiteral("version")] = pld ? kPldVersion : kVersion;
    o[QStringLiteral("dataset")] = qs(dataset_);
    o[QStringLiteral("composition")] = QLatin1String(compositionName(composition()));
    QJsonObject total;
    total[QStringLiteral("epsilon")] = qs(totalEpsilon_);
    total[QStringLiteral("delta")] = qs(totalDelta_);
    o[QStringLiteral("total")] = total;
    if (pld) {
        // The grid and the target δ the accountant used, and the ε it gave: a later run
        // recomputes it from the releases' losses and must find the same double.
        QJsonObject p;
        p[QStringLiteral("interval")] = qs(pldInterval_);
        p[QStringLiteral("delta")] = qs(totalDelta_);
        p[QStringLiteral("epsilon_spent")] = qs(formatShortest(usage().epsilonSpent));
        o[QStringLiteral("pld")] = p;
    }
    QJsonArray rel;
    for (const auto& r : releases_) {
        rel.append(releaseObject(r, pld));
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
    const int version = o.value(QStringLiteral("version")).toInt(-1);
    if (version != 1 && version != kVersion && version != kPldVersion) {
        return Error{origin + ": ledger version " + std::to_string(version) +
                     " is not supported (this program reads versions 1, 2 and 3)"};
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
    // Version 3 is exactly the ledgers of the PLD accountant.
    const bool pld = *composition == Composition::Pld;
    if (pld != (version == kPldVersion)) {
        return Error{origin + ": ledger version " + std::to_string(version) + " with composition " +
                     *comp + " (version 3 is for composition pld, and pld needs version 3)"};
    }
    std::string interval = kDefaultPldInterval, recordedSpent;
    if (pld) {
        const QJsonObject p = o.value(QStringLiteral("pld")).toObject();
        auto h = stringField(p, "interval", origin + " pld");
        auto d = stringField(p, "delta", origin + " pld");
        auto e = stringField(p, "epsilon_spent", origin + " pld");
        if (!h || !d || !e) {
            return !h ? h.error() : !d ? d.error() : e.error();
        }
        if (*d != *td) {
            return Error{origin + ": pld delta '" + *d + "' is not the total δ '" + *td + "'"};
        }
        interval = *h;
        recordedSpent = *e;
    }
    auto ledger = create(*dataset, *te, *td, *composition, interval);
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
        if (version >= 2) {
            auto state = stringField(r, "state", where);
            if (!state) {
                return state.error();
            }
            bool known = false;
            for (auto st :
                 {ReleaseState::Published, ReleaseState::Pending, ReleaseState::NotPublished}) {
                if (*state == releaseStateName(st)) {
                    lr.state = st;
                    known = true;
                }
            }
            if (!known) {
                return Error{where + ": unknown state '" + *state + "'"};
            }
            lr.note = r.value(QStringLiteral("note")).toString().toStdString();
            lr.overwrite = r.value(QStringLiteral("overwrite")).toBool(false);
        }
        for (const QJsonValue& f : r.value(QStringLiteral("files")).toArray()) {
            lr.files.push_back(f.toObject().value(QStringLiteral("path")).toString().toStdString());
            lr.sha256.push_back(
                f.toObject().value(QStringLiteral("sha256")).toString().toStdString());
            if (lr.state == ReleaseState::Pending) {
                lr.temps.push_back(
                    f.toObject().value(QStringLiteral("temp")).toString().toStdString());
            }
        }
        if (pld) {
            // Composed once below (appending one by one would compose every prefix).
            const QJsonValue lv = r.value(QStringLiteral("loss"));
            const QJsonObject l = lv.toObject();
            auto kind = stringField(l, "kind", where + " loss");
            auto parameter = stringField(l, "parameter", where + " loss");
            if (!lv.isObject() || !kind || !parameter) {
                return Error{where + ": 'loss' is missing or incomplete (kind, parameter, " +
                             "sensitivity, count); a PLD ledger records each release's mechanism"};
            }
            lr.loss.kind = *kind;
            lr.loss.parameter = *parameter;
            for (auto [key, field] : {std::pair{"sensitivity", &lr.loss.sensitivity},
                                      std::pair{"count", &lr.loss.count}}) {
                const QJsonValue n = l.value(QLatin1String(key));
                if (!n.isDouble() || n.toDouble() != std::floor(n.toDouble())) {
                    return Error{where + ": loss " + key + " is missing or not a whole number"};
                }
                *field = n.toInteger();
            }
            if (auto ok = lr.validate(); !ok) {
                return Error{where + ": " + ok.error().message};
            }
            if (auto ok = lr.loss.validate(); !ok) {
                return Error{where + ": " + ok.error().message};
            }
            ledger->releases_.push_back(std::move(lr));
            continue;
        }
        if (auto s = ledger->append(std::move(lr)); !s) {
            return Error{where + ": " + s.error().message};
        }
    }
    if (pld) {
        auto spent = ledger->pldEpsilon();
        if (!spent) {
            return Error{origin + ": " + spent.error().message};
        }
        if (formatShortest(*spent) != recordedSpent) {
            // The rule (docs/accounting.md, "When the recomputation differs"): the recorded ε is
            // kept as the authority, with a warning, only when it is MORE pessimistic (larger)
            // than this run's; a smaller recorded ε would under-report the privacy loss: refused.
            auto recorded = parseDecimal(recordedSpent);
            if (!recorded) {
                return Error{origin + ": pld epsilon_spent '" + recordedSpent +
                             "' is not a decimal number; refusing to use the ledger"};
            }
            const double r = recorded->toDouble();
            if (!(r > *spent)) {
                return Error{origin +
                             ": the PLD accountant now gives ε = " + formatShortest(*spent) +
                             " for these releases, more than the " + recordedSpent +
                             " the ledger recorded; refusing to use it (a smaller recorded ε "
                             "would under-report the privacy loss: the accountant changed or the "
                             "file was edited)"};
            }
            ledger->pldRecordedSpent_ = r;
            ledger->pldRecordedCount_ = ledger->releases_.size();
            ledger->pldExcess_ = std::nextafter(r - *spent, 1e300);
            ledger->pldUsageCache_.reset();
            ledger->loadWarning_ =
                origin + ": the PLD accountant now gives ε = " + formatShortest(*spent) +
                " for these releases, less than the " + recordedSpent +
                " the ledger recorded; the recorded, more pessimistic ε stays the authority "
                "(further releases are charged their composition plus the difference, " +
                formatShortest(ledger->pldExcess_) + ")";
            spent = r;
        }
        if (*spent > doubleDown(exactOrZero(*te))) {
            return Error{origin + ": the releases spend ε = " + formatShortest(*spent) +
                         " at δ = " + *td + " under the PLD accountant, above the total " + *te +
                         "; the ledger is inconsistent, refusing to use it"};
        }
    }
    return ledger;
}

Expected<PrivacyLedger> PrivacyLedger::load(const std::string& path) {
    auto where = resolveLedgerPath(path);
    if (!where) {
        return where.error();
    }
    if (!where->exists) {
        return Error{path + ": cannot read the ledger (" + errnoText(ENOENT) + ")"};
    }
    // O_NONBLOCK: a FIFO swapped in after the check above must not block the open; fstat then
    // refuses it. O_NOFOLLOW: the path is already resolved.
    const int fd = ::open(where->path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        return Error{path + ": cannot read the ledger (" + errnoText(errno) + ")"};
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return Error{path + ": " + fileKind(st.st_mode) +
                     ", not a regular file; a ledger must be a regular file"};
    }
    if (st.st_size > (std::int64_t{64} << 20)) {
        ::close(fd);
        return Error{path + ": larger than 64 MiB, not a ledger this program wrote"};
    }
    std::string text;
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            const int e = errno;
            ::close(fd);
            return Error{path + ": cannot read the ledger (" + errnoText(e) + ")"};
        }
        if (n == 0) {
            break;
        }
        text.append(buffer, static_cast<std::size_t>(n));
        if (text.size() > (std::size_t{64} << 20)) {
            ::close(fd);
            return Error{path + ": larger than 64 MiB, not a ledger this program wrote"};
        }
    }
    ::close(fd);
    return fromJson(text, path);
}

}  // namespace dpx::data
